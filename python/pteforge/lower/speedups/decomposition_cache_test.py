"""cached_cia_operators: the same operator set as torch computes, and a library
registered inside the block is seen (shortcuts_test: exports are byte-identical with
and without it)."""

import torch
from torch._export.utils import _collect_all_valid_cia_ops

from pteforge.lower.speedups import decomposition_cache
from pteforge.support import testing


def _current():
    import torch.export.exported_program as exported_program

    return exported_program._collect_all_valid_cia_ops()


def test_same_set_as_torch_and_restored_after():
    expected = _collect_all_valid_cia_ops()
    with decomposition_cache.cached_cia_operators():
        assert _current() == expected
        assert _current() == expected  # from the cache
    import torch.export.exported_program as exported_program

    assert exported_program._collect_all_valid_cia_ops is _collect_all_valid_cia_ops


def test_a_library_registered_inside_the_block_is_seen():
    with decomposition_cache.cached_cia_operators():
        before = _current()
        library = torch.library.Library("pteforge_cache_test", "DEF")
        library.define("double(Tensor x) -> Tensor")
        library.impl("double", lambda x: x * 2, "CompositeImplicitAutograd")
        after = _current()
    added = {op.name() for op in after - before}
    assert "pteforge_cache_test::double" in added


if __name__ == "__main__":
    testing.main(__file__)
