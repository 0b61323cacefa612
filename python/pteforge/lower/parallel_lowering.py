"""Lowering a program's methods in parallel processes.

Edge dialect and delegation work on one method at a time and in one thread (fake-tensor
re-tracing, pass after pass), so a multi-method export leaves every core but one idle:
a Bergamot export spent 27 s lowering `encode` and 12 s lowering the rest, one after the
other. Here the methods are split into groups of about equal cost (graph nodes, those
with symbolic shapes counted twice: lowering_cost); the process lowers the costliest
group itself while forked children lower the others and hand each lowered method back
through ExecuTorch's own serializer (exir.serde, which keeps the delegates), the
delegates' weights beside it, raw (_serialize).

A child that fails, for any reason (a lowering error, a program the serializer cannot
carry, a crash or a hang), costs only time: its group is lowered again here, so a real
lowering error is raised, and explained, exactly as in a serial export. The result does
not depend on the number of processes: the .pte is byte-identical (parallel_lowering_test).

Linux and other systems with fork(); elsewhere, and with PTEFORGE_EXPORT_JOBS=1, it is
serial.
"""

from __future__ import annotations

import logging
import os
import pickle
import signal
import sys
import tempfile
import time
import traceback
from typing import Callable, Mapping

import torch
from torch.export import ExportedProgram

from pteforge.support.errors import ExportError

_log = logging.getLogger("pteforge")

# Below this lowering cost (graph nodes, ATen, before decompositions; a Bergamot decode_step has
# 174, lowered in about 9 s) a group is not worth a process (fork, serialization and
# deserialization cost about 0.3 s); the test models stay serial.
MIN_NODES_PER_PROCESS = 150
# A child taking this many times the parent's own lowering time (at least the floor) is
# taken for hung, stopped, and its group lowered here.
_CHILD_TIMEOUT_FACTOR = 3.0
_CHILD_TIMEOUT_FLOOR_S = 120.0

LowerGroup = Callable[[Mapping[str, ExportedProgram]], Mapping[str, ExportedProgram]]


def export_jobs() -> int:
    """Processes an export may use: PTEFORGE_EXPORT_JOBS, else the cores this process may run on."""
    configured = os.environ.get("PTEFORGE_EXPORT_JOBS", "").strip()
    if configured:
        try:
            jobs = int(configured)
        except ValueError:
            raise ExportError(
                f"PTEFORGE_EXPORT_JOBS={configured!r} is not a number; set it to the number of "
                "processes an export may use (1 = serial)") from None
        if jobs < 1:
            raise ExportError(f"PTEFORGE_EXPORT_JOBS={configured!r} must be at least 1 (1 = serial)")
        return jobs
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def split_by_size(sizes: Mapping[str, int], jobs: int, min_size: int | None = None) -> list[list[str]]:
    """Splits methods into at most `jobs` groups of about equal total size, largest first.

    Greedy: each method, largest first, joins the group with the least so far. Groups
    below `min_size` (default MIN_NODES_PER_PROCESS), other than the first, are merged
    into the first, which stays in this process. Each group keeps the methods' order.
    """
    min_size = MIN_NODES_PER_PROCESS if min_size is None else min_size
    order = {name: index for index, name in enumerate(sizes)}
    groups: list[list[str]] = [[] for _ in range(max(1, min(jobs, len(sizes))))]
    totals = [0] * len(groups)
    for name in sorted(sizes, key=lambda n: (-sizes[n], order[n])):
        smallest = totals.index(min(totals))
        groups[smallest].append(name)
        totals[smallest] += sizes[name]
    ranked = sorted(range(len(groups)), key=lambda i: -totals[i])
    groups = [groups[i] for i in ranked]
    totals = [totals[i] for i in ranked]
    kept = [groups[0]] + [g for g, t in zip(groups[1:], totals[1:]) if g and t >= min_size]
    kept[0] = kept[0] + [n for g, t in zip(groups[1:], totals[1:]) if g and t < min_size for n in g]
    return [sorted(group, key=order.__getitem__) for group in kept if group]


def lowering_cost(program: ExportedProgram) -> int:
    """Its graph nodes, those with a symbolic shape counted twice: each re-trace reasons
    about their sizes. A causal LM's `prefill` (401 nodes at 4 layers, 285 of them
    symbolic) took 122 s to lower at 135M parameters, its `decode_step` (391, none) 73 s."""
    def symbolic(node: torch.fx.Node) -> bool:
        value = node.meta.get("val")
        return isinstance(value, torch.Tensor) and any(isinstance(size, torch.SymInt) for size in value.shape)

    return sum(2 if symbolic(node) else 1 for node in program.graph.nodes)


def lower_methods(programs: Mapping[str, ExportedProgram], lower_group: LowerGroup, jobs: int) -> dict[str, ExportedProgram]:
    """Lowers every method with `lower_group`, in up to `jobs` processes.

    Returns the lowered programs in the order of `programs`.
    """
    sizes = {name: lowering_cost(program) for name, program in programs.items()}
    groups = split_by_size(sizes, jobs) if hasattr(os, "fork") else [list(programs)]
    if len(groups) == 1:
        return dict(lower_group(dict(programs)))
    _log.info("lowering in %d processes: %s", len(groups),
              "; ".join(", ".join(group) for group in groups))
    lowered: dict[str, ExportedProgram] = {}
    with tempfile.TemporaryDirectory(prefix="pteforge-lowering-") as scratch:
        children = [_fork_child(group, programs, lower_group, os.path.join(scratch, f"group{index}.pickle"))
                    for index, group in enumerate(groups[1:], start=1)]
        try:
            started = time.monotonic()
            lowered.update(lower_group({name: programs[name] for name in groups[0]}))
            own_s = time.monotonic() - started
            _log.info("lowered %s here in %.1f s", ", ".join(groups[0]), own_s)
            timeout = max(_CHILD_TIMEOUT_FLOOR_S, _CHILD_TIMEOUT_FACTOR * own_s)
            for child in children:
                received = _collect(child, timeout)
                if received is None:
                    received = lower_group({name: programs[name] for name in child.group})
                lowered.update(received)
        finally:
            for child in children:
                child.stop()
    return {name: lowered[name] for name in programs}


class _Child:
    """A forked process lowering `group` into `path`; pid None if it could not be started."""

    def __init__(self, pid: int | None, group: list[str], path: str):
        self.pid, self.group, self.path = pid, group, path
        self.status = None if pid else -1

    def wait(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while self.status is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = status
                return True
            if time.monotonic() > deadline:
                return False
            time.sleep(0.02)
        return True

    def stop(self) -> None:
        if self.status is None and self.pid:
            try:
                os.kill(self.pid, signal.SIGKILL)
                _, self.status = os.waitpid(self.pid, 0)
            except (ProcessLookupError, ChildProcessError):
                self.status = -1


def _fork_child(group: list[str], programs: Mapping[str, ExportedProgram], lower_group: LowerGroup,
                path: str) -> _Child:
    # Unflushed output would be written twice, once by each process.
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        pid = os.fork()
    except OSError as error:  # no process to be had: the group is lowered here
        _log.info("could not start a process to lower %s (%s); lowering it here", ", ".join(group), error)
        return _Child(None, group, path)
    if pid:
        return _Child(pid, group, path)
    code = 1
    try:
        # The parent's intra-op thread pool does not survive fork(); lowering needs none.
        torch.set_num_threads(1)
        started = time.monotonic()
        lowered = lower_group({name: programs[name] for name in group})
        lowering_s = time.monotonic() - started
        serialized = {name: _serialize(lowered[name]) for name in group}
        with open(path + ".part", "wb") as out:
            pickle.dump((serialized, lowering_s, time.monotonic() - started - lowering_s), out,
                        protocol=pickle.HIGHEST_PROTOCOL)
        os.rename(path + ".part", path)
        code = 0
    except BaseException:  # noqa: BLE001 (reported; the parent lowers the group again)
        # Debug only: the parent lowers the group again and reports a real error itself.
        _log.debug("lowering %s in a child process failed:\n%s", ", ".join(group), traceback.format_exc())
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def _collect(child: _Child, timeout: float) -> dict[str, ExportedProgram] | None:
    """The child's lowered methods, or None (then the caller lowers its group itself)."""
    if not child.wait(timeout):
        _log.warning("lowering %s in a child process took over %.0f s; lowering it here instead",
                     ", ".join(child.group), timeout)
        child.stop()
        return None
    if not (os.WIFEXITED(child.status) and os.WEXITSTATUS(child.status) == 0 and os.path.exists(child.path)):
        ended = f"exit code {os.waitstatus_to_exitcode(child.status)}" if child.status >= 0 else "not started"
        _log.info("the child process lowering %s failed (%s); lowering it here", ", ".join(child.group), ended)
        return None
    try:
        reading = time.monotonic()
        with open(child.path, "rb") as data:
            serialized, lowering_s, writing_s = pickle.load(data)
        received = {name: _deserialize(serialized[name]) for name in child.group}
        _log.info("lowered %s in a child process in %.1f s (handing it over: %.1f s)", ", ".join(child.group),
                  lowering_s, writing_s + time.monotonic() - reading)
        return received
    except Exception as error:  # noqa: BLE001 (the serial path below raises any real error)
        _log.info("reading back %s failed (%s); lowering it here", ", ".join(child.group), error)
        _log.debug("%s", traceback.format_exc())
        return None


def _serialize(program: ExportedProgram) -> tuple[tuple[bytes, bytes, bytes, bytes], list]:
    """ExecuTorch's serialization of `program`, its delegates' payloads beside it.

    exir.serde writes each delegate's named data (XNNPACK's weights) and its original
    program's parameters into JSON as base64: at 135M parameters, about 25 s each way,
    which was as long as lowering the method itself. They travel raw instead (pickle),
    and the serialized program holds empty stand-ins. `program` keeps the stand-ins too:
    the child process serializing it exits next.
    """
    from executorch.exir.serde import serialize as serde

    payloads = [_detach_payload(module) for module in _lowered_modules(program)]
    artifact = serde.serialize(program)
    return (artifact.exported_program, artifact.state_dict, artifact.constants, artifact.example_inputs), payloads


def _deserialize(serialized: tuple[tuple[bytes, bytes, bytes, bytes], list]) -> ExportedProgram:
    from executorch.exir.serde import serialize as serde
    from torch._export.serde.serialize import SerializedArtifact

    artifact, payloads = serialized
    # The serializer drops requires_grad from the values; plan_and_emit drops it from
    # every method (lowering.py), so the .pte does not depend on the path taken.
    program = serde.deserialize(SerializedArtifact(*artifact))
    modules = _lowered_modules(program)
    if len(modules) != len(payloads):
        raise RuntimeError(f"{len(modules)} delegates read back where {len(payloads)} were written")
    for module, payload in zip(modules, payloads):
        _attach_payload(module, payload)
    return program


def _lowered_modules(program: ExportedProgram) -> list:
    """The program's delegates in graph order (the order survives serialization)."""
    from executorch.exir.delegate import executorch_call_delegate

    modules = []
    for graph_module in program.graph_module.modules():
        if isinstance(graph_module, torch.fx.GraphModule):
            for node in graph_module.graph.nodes:
                if node.op == "call_function" and node.target is executorch_call_delegate:
                    modules.append(getattr(graph_module, node.args[0].target))
    return modules


def _stand_in(value):
    """An empty tensor of the same kind (a Parameter stays one: the verifier checks)."""
    if not isinstance(value, torch.Tensor):
        return value
    empty = torch.empty(0, dtype=value.dtype)
    return torch.nn.Parameter(empty, requires_grad=False) if isinstance(value, torch.nn.Parameter) else empty


def _detach_payload(module) -> tuple:
    """Takes the delegate's named data buffers and its original program's tensors out,
    leaving stand-ins the serializer writes in a few bytes."""
    store = module.named_data_store_output
    buffers = None
    if store is not None:
        buffers, store.buffers = store.buffers, [b""] * len(store.buffers)
    original = module.original_module
    tensors = {}
    for kind, table in (("state_dict", original.state_dict), ("constants", original.constants)):
        for key, value in table.items():
            if isinstance(value, torch.Tensor):
                tensors[kind, key] = value
                table[key] = _stand_in(value)
    return buffers, tensors


def _attach_payload(module, payload: tuple) -> None:
    buffers, tensors = payload
    store = module.named_data_store_output
    if (store is None) != (buffers is None) or (store is not None and len(store.buffers) != len(buffers)):
        raise RuntimeError("a delegate's named data does not match what was written")
    if store is not None:
        store.buffers = buffers
    original = module.original_module
    for (kind, key), value in tensors.items():
        table = original.state_dict if kind == "state_dict" else original.constants
        if key not in table:
            raise RuntimeError(f"a delegate's {kind} lost '{key}'")
        table[key] = value
