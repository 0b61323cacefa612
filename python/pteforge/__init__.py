"""pteforge: several entry points of one stateful nn.Module in one verified ExecuTorch .pte.

Public API:
  MultiMethodExporter  declare methods, shared state and constants; export()
  PteProgram           the result: .pte bytes + report; save()
  ExportError          what went wrong, where, and how to fix it
  Tolerance, Call      conformance settings
  load                 load a pteforge .pte in ExecuTorch's Python runtime
  set_verbose          show (True) what torch and ExecuTorch print, held back by default

The names load their modules on first use, so that `import pteforge.<module>` of a light
module (e.g. pteforge.support.quiet) does not import torch and executorch.
"""

from pteforge.support import quiet as _quiet
from pteforge.support.lazy_names import lazy_names

# torch and torchao log a few lines when first imported (by whichever pteforge module
# needs them); a program using pteforge prints only pteforge's own (--verbose shows all).
_quiet.hold_back_import_noise()

__all__, __getattr__ = lazy_names(__name__, {
    "Call": "pteforge.support.spec",
    "ExportError": "pteforge.support.errors",
    "LoadedProgram": "pteforge.run.runtime",
    "MultiMethodExporter": "pteforge.program.exporter",
    "PteProgram": "pteforge.program.pte_program",
    "Tolerance": "pteforge.support.spec",
    "load": "pteforge.run.runtime",
    "set_verbose": "pteforge.support.quiet",
})

