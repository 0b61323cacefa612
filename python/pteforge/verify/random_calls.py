"""Random call sequences: methods and inputs drawn at random, seeded and reproducible.

The default conformance sequence calls every method with its example inputs; a state
bug that shows only after a particular order of calls, or with other sizes or values,
needs more. `random_calls` draws each call's method uniformly and its inputs like the
method's example inputs:

  shape   the example's; a dimension declared dynamic (a torch.export Dim) takes a
          random size within the Dim's range, one size per Dim per call, so arguments
          that share a Dim agree; a derived Dim (2 * n) follows its root. An unbounded
          Dim is capped at twice the example size.
  values  from the method's input_ranges (argument index -> (low, high), inclusive)
          where given; otherwise floating inputs from a standard normal, integer inputs
          from the example's own [min, max], bool at random. Python scalars stay as in
          the example (torch.export bakes them into the graph).

An argument that is a tuple, list or dict of tensors is drawn leaf by leaf, in the
example's structure: the dynamic_shapes of such an argument have its structure (as
torch.export takes them), and input_ranges[i] applies to every leaf of argument i.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

import torch
import torch.utils._pytree as pytree

from pteforge.support.errors import ExportError
from pteforge.support.spec import Call, MethodSpec


def random_calls(methods: Sequence[MethodSpec], count: int, seed: int,
                 parameters: Callable[[str], Sequence[str]] | None = None) -> tuple[Call, ...]:
    """Draws `count` calls among `methods` (see the module docstring).

    Args:
      methods: the entry points, as registered.
      count: how many calls.
      seed: the same seed gives the same calls.
      parameters: method name -> its parameter names, to read dynamic_shapes given as
        a dict keyed by argument name.
    """
    if count < 0:
        raise ExportError(f"random_calls needs a count of 0 or more, got {count}")
    if not methods:
        raise ExportError("no methods registered; add entry points with exporter.method(...)")
    generator = torch.Generator().manual_seed(seed)
    calls = []
    for _ in range(count):
        spec = methods[int(torch.randint(len(methods), (1,), generator=generator))]
        names = parameters(spec.name) if parameters else ()
        calls.append(Call(spec.name, _draw_args(spec, names, generator)))
    return tuple(calls)


def _draw_args(spec: MethodSpec, names: Sequence[str], generator: torch.Generator) -> tuple[Any, ...]:
    per_argument = _dynamic_shapes_per_argument(spec, names)
    sizes: dict[str, int] = {}  # Dim name -> the size drawn for this call
    args = []
    for index, example in enumerate(spec.example_args):
        value_range = (spec.input_ranges or {}).get(index)
        paths, structure = pytree.tree_flatten_with_path(example)
        leaves = []
        for path, leaf in paths:
            if not isinstance(leaf, torch.Tensor):
                leaves.append(leaf)
                continue
            shape = _draw_shape(leaf, _leaf_shapes(per_argument[index], path), sizes, generator)
            leaves.append(_draw_values(leaf, shape, value_range, generator))
        args.append(pytree.tree_unflatten(leaves, structure))
    return tuple(args)


def _leaf_shapes(argument_shapes: Any, path: Sequence[Any]) -> Any:
    """The dynamic shapes of the leaf at `path` (pytree keys) of an argument, from the
    argument's dynamic shapes (structured like the argument; None: all static)."""
    for key in path:
        if argument_shapes is None:
            return None
        try:
            argument_shapes = key.get(argument_shapes)
        except (KeyError, IndexError, TypeError) as error:
            raise ExportError(f"the dynamic_shapes of an argument do not follow its structure at "
                              f"{pytree.keystr(path)} ({type(error).__name__}: {error})") from None
    return argument_shapes


def _dynamic_shapes_per_argument(spec: MethodSpec, names: Sequence[str]) -> list[Any]:
    count = len(spec.example_args)
    shapes = spec.dynamic_shapes
    if shapes is None:
        return [None] * count
    if isinstance(shapes, Mapping):
        return [shapes.get(name) for name in list(names)[:count]] + [None] * max(0, count - len(names))
    shapes = list(shapes)
    return shapes + [None] * (count - len(shapes))


def _dims_of(argument_shapes: Any, rank: int) -> dict[int, Any]:
    if argument_shapes is None:
        return {}
    if isinstance(argument_shapes, Mapping):
        return dict(argument_shapes)
    return {index: dim for index, dim in enumerate(argument_shapes) if index < rank}


def _draw_shape(example: torch.Tensor, argument_shapes: Any, sizes: dict[str, int],
                generator: torch.Generator) -> list[int]:
    shape = list(example.shape)
    for axis, dim in _dims_of(argument_shapes, example.dim()).items():
        if dim is None or not hasattr(dim, "__name__"):
            continue  # static, or a hint (Dim.AUTO) with no declared range
        root = getattr(dim, "root", None)
        if root is not None:  # a derived Dim: a function of its root's size
            root_size = sizes.get(root.__name__)
            if root_size is None:
                root_size = sizes[root.__name__] = _draw_size(root, example.shape[axis], generator)
            shape[axis] = int(dim.fn(root_size))
            continue
        if dim.__name__ not in sizes:
            sizes[dim.__name__] = _draw_size(dim, example.shape[axis], generator)
        shape[axis] = sizes[dim.__name__]
    return shape


def _draw_size(dim: Any, example_size: int, generator: torch.Generator) -> int:
    low = max(int(getattr(dim, "min", 0)), 0)
    high = getattr(dim, "max", None)
    try:
        high = int(high)
    except (TypeError, ValueError, OverflowError):  # unbounded (int_oo)
        high = None
    if high is None or high > 1 << 20:
        high = max(low, 2 * example_size)
    return int(torch.randint(low, high + 1, (1,), generator=generator))


def _draw_values(example: torch.Tensor, shape: list[int], value_range: tuple[float, float] | None,
                 generator: torch.Generator) -> torch.Tensor:
    dtype = example.dtype
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=generator).bool()
    if dtype.is_floating_point or dtype.is_complex:
        if value_range is None:
            return torch.randn(shape, generator=generator).to(dtype)
        low, high = value_range
        return (low + (high - low) * torch.rand(shape, generator=generator)).to(dtype)
    if value_range is None:
        flat = example.reshape(-1)
        low, high = (int(flat.min()), int(flat.max())) if flat.numel() else (0, 0)
    else:
        low, high = int(value_range[0]), int(value_range[1])
    return torch.randint(low, high + 1, shape, generator=generator).to(dtype)
