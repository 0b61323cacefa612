"""pteforge.cli: the command lines. export.py is pteforge-export's (flags, factory
loading, output; `python -m pteforge.export` runs it through the package root's
export.py); tool.py is pteforge's (tools over what the exporter wrote).
"""
