"""Makes re-tracing torchao's quantization operators cheaper, with the same metadata.

A quantized program keeps torchao's quantize_affine, dequantize_affine and
choose_qparams_affine whole (XNNPACK recognizes them), but they have no shape rule of
their own: every re-trace (each ExportPass, each edge-dialect check, each
run_decompositions) works out their output shapes by running their Python
implementation, a few dozen operators, on fake tensors. Three of them per linear
layer, seven linear layers per transformer block, in every pass: on a
SmolLM2-135M-sized 4-bit export that was a third of the time (211 of 614 s, serial,
py-spy).

The layers are alike, so the same call (operator, input shapes, strides, dtypes and
arguments) comes back dozens of times within one fake mode. remembered_quantization_shapes()
runs the implementation the first time and afterwards makes outputs of the shapes it
gave then: the metadata, and so the programs, are the same (shortcuts_test). It acts
only where nothing traces the call (no proxy or functionalization mode: the operator
is recorded as one node there, and the first computation is not); eager calls on real
tensors always run the implementation. If torch's OpOverload.__call__ is not the one
this was written against (torch 2.13), or torchao is not loaded, it does nothing.
"""

from __future__ import annotations

import contextlib
import enum

import torch

from pteforge.lower.speedups.source_patch import replaced_if_known

_NAMES = ("quantize_affine", "dequantize_affine", "choose_qparams_affine")
# sha256 of OpOverload.__call__'s source (torch 2.13), first 16 digits: it calls self._op.
# The operators are met there (an ExportPass calls them directly) and in fake tensors'
# rule for operators a trace keeps whole.
_KNOWN_CALL = "ec4d278d11cb0a0f"
# Per fake mode: call key -> the outputs' (shape, stride, dtype, device).
_CACHE = "_pteforge_quantization_shapes"


class _NotRemembered(Exception):
    """A call whose arguments cannot be keyed, or whose outputs cannot be remade."""


def _dim(size):
    return ("s", str(size.node.expr)) if isinstance(size, torch.SymInt) else size


def _key(value, modes: list):
    from torch._subclasses.fake_tensor import FakeTensor

    if isinstance(value, FakeTensor):
        modes.append(value.fake_mode)
        return ("tensor", tuple(map(_dim, value.shape)), tuple(map(_dim, value.stride())), value.dtype,
                value.device, _dim(value.storage_offset()), value.requires_grad)
    if isinstance(value, torch.Tensor):
        raise _NotRemembered  # a real tensor: run it
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(_key(item, modes) for item in value))
    if isinstance(value, torch.SymInt):
        return ("symint", _dim(value))
    if value is None or isinstance(value, (bool, int, float, str, torch.dtype, torch.device, enum.Enum)):
        return (type(value).__name__, value)
    raise _NotRemembered


def _describe(output):
    if isinstance(output, (list, tuple)):
        return type(output), [_describe(item) for item in output]
    if not isinstance(output, torch.Tensor) or output.storage_offset() != 0 or output.requires_grad:
        raise _NotRemembered
    return None, (tuple(output.shape), tuple(output.stride()), output.dtype, output.device)


def _remake(description, fake_mode):
    kind, value = description
    if kind is not None:
        return kind(_remake(item, fake_mode) for item in value)
    shape, stride, dtype, device = value
    with fake_mode:
        return torch.empty_strided(shape, stride, dtype=dtype, device=device)


def _remembered(compute, args, kwargs):
    """compute(*args, **kwargs), from the fake mode's memory when it was asked before."""
    modes: list = []
    try:
        key = (_key(args, modes), _key(tuple(sorted(kwargs.items())), modes))
    except _NotRemembered:
        return compute(*args, **kwargs)
    if not modes or any(mode is not modes[0] for mode in modes):
        return compute(*args, **kwargs)
    memory = modes[0].__dict__.setdefault(_CACHE, {})
    description = memory.get(key)
    if description is not None:
        return _remake(description, modes[0])
    output = compute(*args, **kwargs)
    try:
        memory[key] = _describe(output)
    except _NotRemembered:
        pass
    return output


def _untraced() -> bool:
    """No mode that records or rewrites the call (make_fx's proxy mode, functionalization)
    is active: only fake tensors, if anything."""
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.utils._python_dispatch import _get_current_dispatch_mode_stack

    return all(isinstance(mode, FakeTensorMode) for mode in _get_current_dispatch_mode_stack())


def _operators() -> list:
    namespace = getattr(torch.ops, "torchao", None)
    found = []
    for name in _NAMES:
        try:
            found.append(getattr(getattr(namespace, name), "default"))
        except (AttributeError, RuntimeError):
            pass
    return found


@contextlib.contextmanager
def remembered_quantization_shapes():
    """Within the block, torchao's quantization operators remember their outputs' shapes
    per fake mode."""
    from torch._ops import OpOverload
    from torch._subclasses import fake_impls

    operators = _operators()
    if not operators:
        yield  # torchao not loaded
        return
    remembering = frozenset(operators)

    # OpOverload's own method (its hash is its _op's, so the instance cannot be changed).
    def call(self, /, *args, **kwargs):
        if self in remembering and _untraced():
            return _remembered(self._op, args, kwargs)
        return self._op(*args, **kwargs)

    # Another torch, or already inside the block: left as it is.
    with replaced_if_known(OpOverload, "__call__", call, _KNOWN_CALL) as replaced:
        if not replaced:
            yield
            return
        rules = [(op, fake_impls.op_implementations_dict.get(op)) for op in operators]
        for op, rule in rules:
            # The rule fake tensors use when a trace keeps the operator whole: torch's own
            # (it runs the implementation under the fake mode), registered here first.
            fake_impls.op_implementations_dict[op] = _fake_rule(op, rule)
        try:
            yield
        finally:
            for op, rule in rules:
                if rule is None:
                    fake_impls.op_implementations_dict.pop(op, None)
                else:
                    fake_impls.op_implementations_dict[op] = rule


def _fake_rule(op, rule):
    """The operator met inside FakeTensorMode's dispatch, below any tracing mode."""
    if rule is None:
        from torch._export.utils import _get_decomp_for_cia

        implementation = _get_decomp_for_cia(op)

        def rule(fake_mode, func, *args, **kwargs):
            with fake_mode:
                return implementation(*args, **kwargs)

    def remembered_rule(fake_mode, func, *args, **kwargs):
        return _remembered(lambda *a, **k: rule(fake_mode, func, *a, **k), args, kwargs)

    return remembered_rule
