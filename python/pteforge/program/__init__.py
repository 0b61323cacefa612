"""pteforge.program: the driver. MultiMethodExporter (exporter.py) runs the stages in
order and returns a PteProgram (pte_program.py): the .pte bytes, the report, and how to
save them.
"""
