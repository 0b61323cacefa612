"""Traces one method of a module with torch.export, and explains its failures.

torch.export only traces `forward`, so a method is captured by pointing the module's
`forward` at it for the duration of the trace. Parameter and buffer names are then the
module's own fully-qualified names in every method, which is what lets ExecuTorch's
memory planner give a buffer the same place in all of them (FINDINGS.md: names must
match exactly).
"""

from __future__ import annotations

import copy
import dataclasses
import re
import types
import warnings
from typing import Any, Callable

import torch
from torch.export.graph_signature import InputKind, OutputKind

from pteforge.capture.arguments import check_bounded, leaf_names, method_parameters
from pteforge.capture.dynamic_slices import dynamic_slices
from pteforge.capture.graph_repairs import decompose_outside_core, expand_broadcast_copies
from pteforge.capture.written_arguments import return_written_arguments
from pteforge.support import failures
from pteforge.support.errors import ExportError
from pteforge.support.spec import clone_args


@dataclasses.dataclass(frozen=True)
class CapturedMethod:
    """A method traced to an ExportedProgram, with the buffers it touches.

    Attributes:
      name: the method's name.
      program: the torch.export result.
      reads: fully-qualified names of the buffers the method uses (read or written).
      writes: the buffers it mutates.
      written_args: the arguments it writes in place, by index, in the order their
        final values follow the method's own outputs (written_arguments.py).
    """

    name: str
    program: torch.export.ExportedProgram
    reads: frozenset[str]
    writes: frozenset[str]
    written_args: tuple[int, ...] = ()


def capture(
    module: torch.nn.Module,
    name: str,
    function: Callable[..., Any],
    example_args: tuple[Any, ...],
    dynamic_shapes: Any = None,
) -> CapturedMethod:
    """Traces `function` (called with `module` as self) into an ExportedProgram.

    Args:
      module: the module owning the state; its `forward` is swapped for the trace and
        restored afterwards.
      name: the method's name, for messages.
      function: an unbound function taking the module as its first argument.
      example_args: example inputs.
      dynamic_shapes: torch.export dynamic_shapes for the inputs.

    Returns:
      The captured method.

    Raises:
      ExportError: the method cannot be exported; the message says why and what to do.
    """
    had_own_forward = "forward" in module.__dict__
    own_forward = module.__dict__.get("forward")
    module.forward = types.MethodType(function, module)
    try:
        # strict=True: non-strict tracing was seen failing later in to_edge (FINDINGS.md).
        # dynamic_slices: slices of dynamic size traced so they work up to the full size.
        with warnings.catch_warnings(record=True) as caught, dynamic_slices():
            warnings.simplefilter("always")
            program = torch.export.export(
                module, example_args, dynamic_shapes=dynamic_shapes, strict=True
            )
    except Exception as error:  # torch raises many types; each becomes an ExportError.
        raise (_branch_writes(module, name, error) or _explain(name, error)) from error
    finally:
        if had_own_forward:
            module.forward = own_forward
        else:
            del module.forward
    check_bounded(program, name, leaf_names(method_parameters(function), example_args))
    # torch.export returns in-place buffer updates as in-place ops; functionalizing (no
    # decompositions yet: the backend chooses those) turns them into BUFFER_MUTATION
    # outputs, which is how the state each method writes is known.
    expand_broadcast_copies(program)
    try:
        program = decompose_outside_core(program.run_decompositions({}))
    except Exception as error:
        raise failures.explain("functionalizing the traced method (run_decompositions)", error, method=name) from error
    _check_no_parameter_written(program, name)
    written_args = return_written_arguments(program, name)
    signature = program.graph_signature
    reads = {
        spec.target for spec in signature.input_specs if spec.kind == InputKind.BUFFER
    }
    writes = {
        spec.target
        for spec in signature.output_specs
        if spec.kind == OutputKind.BUFFER_MUTATION
    }
    _check_argument_names(name, signature, reads | writes)
    side_effects = [w for w in caught if _BUFFER_SIDE_EFFECT in str(w.message)]
    for w in caught:
        if w not in side_effects:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    if side_effects:
        _check_side_effects(module, name, function, example_args, writes)
    return CapturedMethod(name, program, frozenset(reads | writes), frozenset(writes), written_args)


def _check_argument_names(method: str, signature, buffers: set[str]) -> None:
    """Refuses an argument named like a buffer the method uses: ExecuTorch 1.5.1 then
    confuses the two, and a write of the argument into the buffer is silently lost
    (conformance catches it, but with a message that does not say why)."""
    names = {buffer: buffer for buffer in buffers} | {buffer.replace(".", "_"): buffer for buffer in buffers}
    for spec in signature.input_specs:
        if spec.kind == InputKind.USER_INPUT and getattr(spec.arg, "name", None) in names:
            raise ExportError(
                f"argument '{spec.arg.name}' has the name of the buffer "
                f"'{names[spec.arg.name]}' it uses; rename the argument (ExecuTorch confuses "
                "the two and loses the write to the buffer)",
                method=method,
            )


# torch.export's warning when a method assigns to a module's buffers (dropped in the
# graph unless the assignment is an in-place update such as `+=`).
_BUFFER_SIDE_EFFECT = "side effects happened in the model.forward"


def _check_no_parameter_written(program: torch.export.ExportedProgram, method: str) -> None:
    """Refuses a method that changes a parameter in place (`self.w.add_(x)` under no_grad):
    parameters are constants of the program, so the change would be lost."""
    for spec in program.graph_signature.output_specs:
        if spec.kind == OutputKind.PARAMETER_MUTATION:
            raise ExportError(
                f"changes the parameter '{spec.target}' in place. Parameters are constants of the "
                "program, so the change would be lost. Keep a value that changes in a buffer: "
                f"register it with self.register_buffer(...) instead of nn.Parameter (and declare it "
                "shared state if other methods use it).",
                method=method,
            )


def _check_side_effects(module: torch.nn.Module, method: str, function: Callable[..., Any],
                        example_args: tuple[Any, ...], writes: set[str]) -> None:
    """Refuses what torch.export reported as a side effect it dropped, naming it:
    - a new tensor assigned to a buffer (`self.h = self.h * 0.5 + x`): torch.export
      keeps only in-place writes, so the update would silently be lost;
    - a plain Python attribute changed (`self.calls += 1`): its value at trace time is
      baked into the graph, so the program would never see it change.
    Which one is found by one eager call on a copy of the module: `+=` keeps a buffer's
    tensor, an assignment replaces it; an attribute's value is compared."""
    trial = copy.deepcopy(module)
    before = dict(trial.named_buffers())
    attributes = _plain_attributes(trial)
    try:
        with torch.no_grad():
            function(trial, *clone_args(example_args))
    except Exception:  # noqa: BLE001 (the trial only names the buffer; export went through)
        return
    # Only attributes that existed before the call: one set on first use (a lazy
    # initialization) says nothing about later calls.
    for attribute, value in _plain_attributes(trial).items():
        if attribute in attributes and attributes[attribute] != value:
            raise ExportError(
                f"changes the Python attribute `self.{attribute}` ({attributes[attribute]!r} -> {value!r}). torch.export "
                "bakes its value at export time into the program, which would never see it change. "
                "Keep it in a buffer and update it in place, e.g. "
                f"self.register_buffer('{attribute.rpartition('.')[2]}', torch.tensor(0)) and "
                f"self.{attribute}.add_(1).",
                method=method,
            )
    for buffer_name, tensor in trial.named_buffers():
        if buffer_name in before and tensor is not before[buffer_name] and buffer_name not in writes:
            raise ExportError(
                f"assigns a new tensor to the buffer (`self.{buffer_name} = ...`). torch.export "
                "keeps only in-place writes to a buffer, so this update would be lost. Write it "
                f"in place: self.{buffer_name}.copy_(new_value).",
                method=method,
                buffer=buffer_name,
            )


_PLAIN = (bool, int, float, str, type(None))


def _plain_attributes(module: torch.nn.Module) -> dict[str, Any]:
    """Every submodule's attributes holding plain Python values (numbers, strings, and
    tuples, lists and dicts of them), by qualified name, copied."""
    found = {}
    for prefix, submodule in module.named_modules():
        for attribute, value in vars(submodule).items():
            if attribute.startswith("__") or attribute == "training" or not _is_plain(value):
                continue
            found[f"{prefix}.{attribute}" if prefix else attribute] = copy.deepcopy(value)
    return found


def _is_plain(value: Any) -> bool:
    if isinstance(value, _PLAIN):
        return True
    if isinstance(value, (tuple, list)):
        return all(_is_plain(item) for item in value)
    if isinstance(value, dict):
        return all(isinstance(key, _PLAIN) and _is_plain(item) for key, item in value.items())
    return False


# Dynamo refusing a torch.cond / torch.while_loop body that writes a buffer or input,
# naming the value as a mangled local: "Input mutation detected at [l__self____export_root_sub_n]".
_BRANCH_MUTATION = re.compile(r"Input mutation detected at \[(?:l__self____export_root_)?(\w+)\]")


def _branch_writes(module: torch.nn.Module, method: str, error: Exception) -> ExportError | None:
    """The refusal of a control-flow branch (torch.cond) that writes state, naming the
    buffer and the line; None for other failures."""
    match = _BRANCH_MUTATION.search(str(error))
    if match is None:
        return None
    mangled = match.group(1)
    names = [buffer for buffer, _ in module.named_buffers() if buffer.replace(".", "_") == mangled]
    what = f"the buffer '{names[0]}'" if names else f"'{mangled}'"
    where = _user_code_location(str(error))
    return ExportError(
        f"a branch of torch.cond{f' (at {where})' if where else ''} writes {what}. torch.cond's branches "
        "cannot change state or arguments. Return the new value from both branches instead (as operands, "
        "a branch returning one unchanged as a clone) and write it after the cond: new = torch.cond(pred, "
        "lambda acc, x: acc + x, lambda acc, x: acc.clone(), (self.acc, x)); self.acc.copy_(new).",
        method=method, buffer=names[0] if names else None,
    )


_SPECIALIZED = re.compile(r"You marked (\w+) as dynamic but your code specialized it to be a constant \((\d+)\)")
_GUARD = re.compile(r"Not all values of (\w+) = .* satisfy the generated guard (.*?)\.?$", re.MULTILINE)
# Dynamo running an operation on fake tensors: "... with fake tensors: call_function
# <op>(...): got RuntimeError('expand: attempting to expand ...')".
_FAKE_TENSOR_FAILURE = re.compile(r"failed to run FX node with fake tensors:.*?got (\w+)\('(.*?)'\)", re.S)


def _explain(method: str, error: Exception) -> ExportError:
    """Turns a torch.export failure into an ExportError that says what to change."""
    text = str(error)
    first_line = text.strip().splitlines()[0] if text.strip() else type(error).__name__
    if "Data-dependent branching" in text or "data-dependent" in text.lower() and "branch" in text.lower():
        where = _user_code_location(text)
        return ExportError(
            "data-dependent control flow" + (f" at {where}" if where else "") + ". "
            "A method is one fixed graph, so a branch on tensor values cannot be exported. "
            "Split the branches into separate methods (e.g. one per case) and let the caller "
            "choose between them, or express the choice with torch.where / torch.cond.",
            method=method,
        )
    match = _SPECIALIZED.search(text)
    if match:
        dim, size = match.group(1), int(match.group(2))
        if size == 1:
            hint = (
                "An example size of 1 always makes torch.export treat that dimension as "
                "the constant 1. Give an example of size 2 or more for it."
            )
        else:
            hint = (
                f"The method's code only works for size {size}, for instance a slice write "
                f"`buffer[:, :n] = x` where n can reach the buffer's full size {size}. "
                "Write with index_copy_ (buffer.index_copy_(dim, torch.arange(n), x)) "
                f"or give an example size below {size}."
            )
        return ExportError(
            f"dynamic dimension '{dim}' was specialized to the constant {size}. {hint}",
            method=method,
        )
    match = _GUARD.search(text)
    if match:
        dim, guard = match.group(1), match.group(2).strip()
        return ExportError(
            f"dynamic dimension '{dim}' cannot take every value up to its maximum: the "
            f"traced code requires `{guard}`. A write into a view of dynamic size does this "
            "when the view can reach the whole tensor. pteforge traces `t[a:b, c:d] = x` and "
            "`t.narrow(...).copy_(x)` (slices of step 1, bounds >= 0) so that they work at "
            "every size; write other views that way, or with index_copy_ "
            "(t.index_copy_(dim, torch.arange(n), x)), or lower the Dim's max.",
            method=method,
        )
    match = _FAKE_TENSOR_FAILURE.search(text)
    if match:
        where = _user_code_location(text)
        return ExportError(
            f"the method fails while tracing{f' at {where}' if where else ''}: "
            f"{match.group(1)}: {match.group(2)}. Check that it runs in eager PyTorch with "
            "inputs of every size its Dims allow.",
            method=method,
        )
    if "GuardOnDataDependentSymNode" in type(error).__name__ or "data dependent" in text.lower():
        return ExportError(
            "a shape or branch depends on tensor values (e.g. `.item()` used as a size). "
            "Pass such values as separate methods or fixed sizes. torch.export said: "
            + first_line,
            method=method,
        )
    return ExportError(
        f"torch.export failed ({type(error).__name__}): {first_line}", method=method
    )


def _user_code_location(text: str) -> str | None:
    """The innermost 'File "...", line N' of user code in a dynamo message, if any."""
    locations = re.findall(r'File "([^"]+)", line (\d+)', text)
    user = [(f, l) for f, l in locations if "/torch/" not in f and "site-packages" not in f]
    if not user:
        return None
    path, line = user[-1]
    return f"{path}:{line}"
