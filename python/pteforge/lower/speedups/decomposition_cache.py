"""Makes torch's decompositions cheaper during an export, with the same result.

Every ExportedProgram.run_decompositions call (ExecuTorch's to_edge makes two to five
per method, pteforge's capture one) asks torch for the set of "preservable
CompositeImplicitAutograd operators" (torch._export.utils._collect_all_valid_cia_ops).
torch caches that set for the aten namespace only, because a custom operator library
can be registered between two calls; for every other namespace (quantized_decomposed,
torchao, ExecuTorch's own, ...) it walks all the dispatcher's registrations again. On
a small model that walk was about a quarter of the export.

cached_cia_operators() keeps the set for as long as the operator registry is the same:
the key is the namespaces and the number of registered operators, which any
registration changes, so a library registered mid-export is still seen. The programs
are byte-identical with and without it (decomposition_cache_test). If torch changes
the functions this relies on, it does nothing.
"""

import contextlib

import torch

_MODULES = ("torch.export.exported_program", "torch.export.decomp_utils")


def _registry_key():
    return tuple(torch.ops._dir), len(torch._C._dispatch_get_all_op_names())


@contextlib.contextmanager
def cached_cia_operators():
    """Within the block, torch computes the preservable CIA operators once per registry."""
    import importlib

    try:
        from torch._export.utils import _collect_all_valid_cia_ops as collect
        modules = [importlib.import_module(name) for name in _MODULES]
    except ImportError:
        yield
        return
    if not all(getattr(module, "_collect_all_valid_cia_ops", None) is collect for module in modules):
        yield  # another torch, or already inside the block
        return
    known: dict = {}

    def cached():
        key = _registry_key()
        if key not in known:
            known.clear()
            known[key] = frozenset(collect())
        return set(known[key])  # callers may modify what they get

    for module in modules:
        module._collect_all_valid_cia_ops = cached
    try:
        yield
    finally:
        for module in modules:
            module._collect_all_valid_cia_ops = collect
