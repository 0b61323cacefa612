"""pteforge: several entry points of one stateful nn.Module in one verified ExecuTorch .pte.

Public API:
  MultiMethodExporter  declare methods, shared state and constants; export()
  PteProgram           the result: .pte bytes + report; save()
  ExportError          what went wrong, where, and how to fix it
  Tolerance, Call      conformance settings
  load                 load a pteforge .pte in ExecuTorch's Python runtime
"""

from pteforge.errors import ExportError
from pteforge.exporter import MultiMethodExporter
from pteforge.program import PteProgram
from pteforge.runtime import LoadedProgram, load
from pteforge.spec import Call, Tolerance

__all__ = [
    "Call",
    "ExportError",
    "LoadedProgram",
    "MultiMethodExporter",
    "PteProgram",
    "Tolerance",
    "load",
]
