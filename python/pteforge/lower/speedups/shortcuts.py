"""The exporter's shortcuts: speed-ups inside torch's and ExecuTorch's passes that must
not change a single byte of the program (decomposition_cache.py, dtype_check.py,
fused_edge_passes.py, xnnpack_retraces.py, redundant_decompositions.py, fusion_sort.py,
merge_check.py, node_provenance.py, quantization_shapes.py, lazy_annotations.py,
garbage_collection.py).

PTEFORGE_EXPORT_SHORTCUTS=0 turns them all off: for a benchmark's before/after, or to
rule them out when a newer torch or ExecuTorch behaves unexpectedly.
"""

import contextlib
import os

from pteforge.lower.speedups.decomposition_cache import cached_cia_operators
from pteforge.lower.speedups.dtype_check import metadata_dtype_check
from pteforge.lower.speedups.fused_edge_passes import fused_edge_passes
from pteforge.lower.speedups.fusion_sort import sorted_in_place_while_fusing
from pteforge.lower.speedups.garbage_collection import fewer_full_collections
from pteforge.lower.speedups.lazy_annotations import unevaluated_annotations
from pteforge.lower.speedups.merge_check import faster_merge_checks
from pteforge.lower.speedups.node_provenance import shared_provenance
from pteforge.lower.speedups.quantization_shapes import remembered_quantization_shapes
from pteforge.lower.speedups.redundant_decompositions import skip_redundant_decompositions
from pteforge.lower.speedups.xnnpack_retraces import skip_unchanged_retraces

SWITCH = "PTEFORGE_EXPORT_SHORTCUTS"


@contextlib.contextmanager
def export_shortcuts():
    """Within the block, the shortcuts are on, unless PTEFORGE_EXPORT_SHORTCUTS=0. They
    stay on in processes forked inside it (lower/parallel_lowering.py)."""
    if os.environ.get(SWITCH, "1") == "0":
        yield
        return
    with (fewer_full_collections(), cached_cia_operators(), skip_unchanged_retraces(), skip_redundant_decompositions(),
          sorted_in_place_while_fusing(), faster_merge_checks(), shared_provenance(),
          remembered_quantization_shapes(), unevaluated_annotations(), metadata_dtype_check(), fused_edge_passes()):
        yield
