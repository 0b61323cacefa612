"""Slices of dynamic size, traced so that they work up to the tensor's full size.

torch 2.13 cannot export `buf[0:n, 0:m] = x`, `buf[:, :m] = x`,
`buf.narrow(0, 0, n).narrow(1, 0, m).copy_(x)`, nor a computation on `buf[:n, :m]`, when
m may reach buf's full width: torch asks whether the [n, m] view of buf is contiguous,
which holds only when m equals the width, and the guard `m != width` contradicts the
Dim (FINDINGS.md, "Full-size slice writes"). pteforge traces each method inside
`dynamic_slices()`, which answers both ways the question is asked:

  reads    torch's Python contiguity check (torch._prims_common, used by the fake
           kernels) answers "contiguous" only where that holds at every size, without
           a guard. Contiguity only chooses the memory layout of results, so the values
           computed are the same; conformance checks them at the sizes a Dim allows.
  writes   the fake kernel of copy_ asks again in C++ (whether the written view
           overlaps itself). `DynamicSlices`, a TorchFunctionMode that torch.export's
           strict tracer inlines, traces these writes to a slice of step 1 and bounds
           >= 0 of dynamic size, where the slice is not contiguous at every size (a
           dimension of more than one element comes before its last partial one;
           `cache[:n] = x` is left alone), as one in-place index_copy_ of the whole
           tensor, fed by index_select / index_copy for the inner dimensions:
             t[key] = x                       key: slices and integers
             view.copy_(x), view[key] = x     view: from t.narrow(...) (or slicing t,
                                              where the tracer routes it to the mode)
             view.mul_(2), view += 1, ...     done on a copy of the region, written back
           Values are converted and broadcast as assignment does.

Anything else (steps, negative or tensor indices, other kinds of views) is left to
torch, which may still refuse it with its own message; a divergence from eager
PyTorch that slips through is caught by conformance.
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterator, Sequence

import torch
import torch._prims_common as prims_common
from torch import sym_max
from torch.fx.experimental.symbolic_shapes import statically_known_true
from torch.overrides import TorchFunctionMode

# The attribute on a view of a region: the tensor it views and, per dimension of that
# tensor, the (start, length) it covers.
_REGION = "_pteforge_region"

Region = list  # per dimension: (start, length); ints or SymInts

_IN_PLACE_DUNDERS = frozenset({
    "__iadd__", "__isub__", "__imul__", "__itruediv__", "__ifloordiv__", "__imod__", "__ipow__",
    "__iand__", "__ior__", "__ixor__", "__ilshift__", "__irshift__",
})


def _is_dynamic(value: Any) -> bool:
    return isinstance(value, torch.SymInt)


def _is_index(value: Any) -> bool:
    """A non-negative int or a SymInt (a dynamic size or position)."""
    if isinstance(value, bool):
        return False
    return _is_dynamic(value) or (isinstance(value, int) and value >= 0)


def _region_from_key(shape: Sequence[Any], key: Any) -> tuple[Region, list[int]] | None:
    """The region `tensor[key]` covers and the dimensions an integer index removes, or
    None for a key this module leaves to torch."""
    if not isinstance(key, tuple):
        key = (key,)
    if len(key) > len(shape):
        return None
    region, removed = [], []
    for dim, index in enumerate(key):
        if isinstance(index, slice):
            if index.step not in (None, 1) or not all(b is None or _is_index(b) for b in (index.start, index.stop)):
                return None
            start = 0 if index.start is None else index.start
            stop = shape[dim] if index.stop is None else index.stop
            region.append((start, stop - start))
        elif _is_index(index):
            region.append((index, 1))
            removed.append(dim)
        else:
            return None
    region.extend((0, shape[dim]) for dim in range(len(key), len(shape)))
    return region, removed


def _whole(shape: Sequence[Any], region: Region, dim: int) -> bool:
    start, length = region[dim]
    return not _is_dynamic(start) and not _is_dynamic(length) and start == 0 and length == shape[dim]


def _needs_region(shape: Sequence[Any], region: Region) -> bool:
    """Whether torch would have to ask if the region's view is contiguous: the region
    is dynamic, and before its last partial dimension lies one that may hold more than
    one element (`t[:, :m]`, `t[:n, :m]`; `t[:n]` and `t[i, :m]` are contiguous)."""
    if not any(_is_dynamic(start) or _is_dynamic(length) for start, length in region):
        return False
    partial = [dim for dim in range(len(region)) if not _whole(shape, region, dim)]
    if not partial:
        return False
    return any(_is_dynamic(region[dim][1]) or region[dim][1] != 1 for dim in range(partial[-1]))


def _within(outer: Region, inner: Region) -> Region:
    """`inner` (relative to a view covering `outer`) in the coordinates of the base."""
    return [(o_start + i_start, i_length) for (o_start, _), (i_start, i_length) in zip(outer, inner)]


def _positions(extent: tuple[Any, Any]) -> torch.Tensor:
    """The indices start .. start + length - 1 of one dimension of a region."""
    start, length = extent
    return torch.arange(start, start + length)


def read_region(base: torch.Tensor, region: Region) -> torch.Tensor:
    """base[region] as a new contiguous tensor, through index_select only."""
    result = base
    for dim in range(len(region)):
        if not _whole(base.shape, region, dim):
            result = result.index_select(dim, _positions(region[dim]))
    return result


def write_region(target: torch.Tensor, region: Region, value: Any, removed: Sequence[int] = ()) -> None:
    """target[region] = value, in place, through index_select / index_copy only.

    Args:
      target: the tensor written.
      region: per dimension of target, (start, length).
      value: a tensor or number, broadcast to the region's shape as assignment does
        (with the dimensions in `removed` taken away first, as an integer index does).
      removed: dimensions indexed by an integer in the user's key.
    """
    kept = [length for dim, (_, length) in enumerate(region) if dim not in removed]
    if isinstance(value, torch.Tensor):
        source = value.to(target.dtype).expand(kept)
    else:
        source = torch.full(kept, value, dtype=target.dtype)
    for dim in sorted(removed):
        source = source.unsqueeze(dim)
    dims = [dim for dim in range(len(region)) if not _whole(target.shape, region, dim)]
    if not dims:
        target.copy_(source)
        return

    def index(dim: int) -> torch.Tensor:
        return _positions(region[dim])

    def written(current: torch.Tensor, position: int) -> torch.Tensor:
        """`current` (covering dims[:position] of the region) with the rest written."""
        dim = dims[position]
        if position == len(dims) - 1:
            return current.index_copy(dim, index(dim), source)
        inner = written(current.index_select(dim, index(dim)), position + 1)
        return current.index_copy(dim, index(dim), inner)

    first = dims[0]
    if len(dims) == 1:
        target.index_copy_(first, index(first), source)
    else:
        target.index_copy_(first, index(first), written(target.index_select(first, index(first)), 1))


def _region_of(tensor: Any) -> tuple[torch.Tensor, Region] | None:
    return getattr(tensor, _REGION, None) if isinstance(tensor, torch.Tensor) else None


def _base_and_region(tensor: torch.Tensor) -> tuple[torch.Tensor, Region]:
    """The tensor a (possible) region view views, and the view's region of it."""
    found = _region_of(tensor)
    return found if found is not None else (tensor, [(0, size) for size in tensor.shape])


class DynamicSlices(TorchFunctionMode):
    """Traces writes to dynamic-size slices as index_copy_ (see the module docstring)."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        # The tracer inlines this code, so what it does lands in the graph. It also
        # runs each traced operation on fake tensors with the mode still installed, and
        # later replays the graph through it: there the writes were already rewritten,
        # and what is left (marking views) changes nothing.
        kwargs = kwargs or {}
        name = getattr(func, "__name__", "")
        if func is torch.Tensor.__setitem__ and not kwargs:
            target, key, value = args
            base, outer = _base_and_region(target)
            found = _region_from_key(target.shape, key)
            if found is not None:
                region, removed = _within(outer, found[0]), found[1]
                if _region_of(target) is not None or _needs_region(base.shape, region):
                    write_region(base, region, value, removed)
                    return None
        elif func is torch.Tensor.copy_ and _region_of(args[0]) is not None and len(args) == 2 and not kwargs:
            base, region = _region_of(args[0])
            write_region(base, region, args[1])
            return args[0]
        elif func in (torch.Tensor.narrow, torch.narrow) and len(args) == 4 and not kwargs:
            tensor, dim, start, length = args
            base, outer = _base_and_region(tensor)
            dim = dim + tensor.dim() if dim < 0 else dim
            region = list(outer)
            region[dim] = (outer[dim][0] + start, length)
            return _remember(func(*args), base, region, _region_of(tensor) is not None)
        elif func is torch.Tensor.__getitem__ and not kwargs:
            tensor, key = args
            found = _region_from_key(tensor.shape, key)
            if found is not None and not found[1]:  # slices only: the view keeps the rank
                base, outer = _base_and_region(tensor)
                return _remember(func(*args), base, _within(outer, found[0]), _region_of(tensor) is not None)
        elif args and _region_of(args[0]) is not None and (
                (name.endswith("_") and not name.startswith("_")) or name in _IN_PLACE_DUNDERS):
            return _in_place(func, args, kwargs)
        return func(*args, **kwargs)


def _remember(view: torch.Tensor, base: torch.Tensor, region: Region, nested: bool) -> torch.Tensor:
    """Marks `view` as a region of `base` where a write through it needs write_region."""
    if nested or _needs_region(base.shape, region):
        setattr(view, _REGION, (base, region))
    return view


def _in_place(func: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> torch.Tensor:
    """An in-place operation on a region's view: done on a copy, written back."""
    view = args[0]
    base, region = _region_of(view)
    values = read_region(base, region)
    func(values, *args[1:], **kwargs)
    write_region(base, region, values)
    return view


_CHECK = "check_contiguous_sizes_strides"


def _provably_contiguous(sizes: Sequence[Any], strides: Sequence[Any], false_if_dde: bool = False) -> bool:
    """torch._prims_common.check_contiguous_sizes_strides, answering True only where it
    holds for every value of the dynamic sizes, and adding no guard."""
    del false_if_dde  # no guard is ever added, data-dependent or not
    expected, expected_max = 1, 1
    for size, stride in reversed(tuple(zip(sizes, strides))):
        if statically_known_true(size == 1):
            continue
        if not (statically_known_true(stride == expected) or statically_known_true(stride == expected_max)):
            return False
        expected_max = expected_max * sym_max(size, 1)
        expected = expected * size
    return True


@contextlib.contextmanager
def dynamic_slices() -> Iterator[None]:
    """Traces dynamic-size slices as the module docstring says, while the block runs."""
    original = getattr(prims_common, _CHECK)
    setattr(prims_common, _CHECK, _provably_contiguous)
    try:
        with DynamicSlices():
            yield
    finally:
        setattr(prims_common, _CHECK, original)
