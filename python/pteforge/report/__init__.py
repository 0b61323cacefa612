"""pteforge.report: the report next to each .pte (report.py) and the memory plan as
a picture (plan_svg.py, which imports nothing heavy).
"""
