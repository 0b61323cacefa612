"""Work done in forked processes during an export, handed back through a file.

Capturing and lowering work on one method at a time, in one thread, so a multi-method
export leaves every core but one idle. capture/parallel_capture.py and
lower/parallel_lowering.py give some methods to forked children: a child inherits the
module and the programs as they are (fork), does its share, packs the result (pickle-
able) into a file and exits; the parent does its own share meanwhile, then unpacks the
child's.

A child that fails, for any reason (an error, a result that cannot be packed, a crash or
a hang), costs only time: `collect` returns None and the caller does the work itself, so
a real error is raised, and explained, exactly as in a serial export.

Linux and other systems with fork(); elsewhere, and with PTEFORGE_EXPORT_JOBS=1, the
callers stay serial.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import os
import pickle
import signal
import sys
import tempfile
import time
import traceback
from typing import Any, Callable

import torch

from pteforge.support.errors import ExportError

_log = logging.getLogger("pteforge")

# A child taking this many times the parent's own share (at least the floor) is taken
# for hung, stopped, and its share done in the parent.
CHILD_TIMEOUT_FACTOR = 3.0
CHILD_TIMEOUT_FLOOR_S = 120.0


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


def can_fork() -> bool:
    return hasattr(os, "fork")


def child_timeout(own_s: float) -> float:
    """How long to wait for children once the parent's own share took `own_s`."""
    return max(CHILD_TIMEOUT_FLOOR_S, CHILD_TIMEOUT_FACTOR * own_s)


@dataclasses.dataclass
class Handover:
    """A child's result: `value` unpacked, the child's `work_s` on its share and the
    `handover_s` spent packing, writing, reading and unpacking it."""

    value: Any
    work_s: float
    handover_s: float


class Child:
    """A forked process doing the share `label` into `path`; pid None if it could not be started."""

    def __init__(self, pid: int | None, label: str, path: str):
        self.pid, self.label, self.path = pid, label, path
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


def start(label: str, work: Callable[[], Any], pack: Callable[[Any], Any], path: str) -> Child:
    """Forks a child that writes pack(work()) to `path` (pickled) and exits."""
    # Unflushed output would be written twice, once by each process.
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        pid = os.fork()
    except OSError as error:  # no process to be had: the caller does the share itself
        _log.info("could not start a process for %s (%s); doing it here", label, error)
        return Child(None, label, path)
    if pid:
        return Child(pid, label, path)
    code = 1
    try:
        # The parent's intra-op thread pool does not survive fork(); one thread will do.
        torch.set_num_threads(1)
        started = time.monotonic()
        result = work()
        work_s = time.monotonic() - started
        packed = pack(result)
        with open(path + ".part", "wb") as out:
            pickle.dump((packed, work_s, time.monotonic() - started - work_s), out, protocol=pickle.HIGHEST_PROTOCOL)
        os.rename(path + ".part", path)
        code = 0
    except BaseException:  # noqa: BLE001 (reported; the parent does the share again)
        # Debug only: the parent does the share again and reports a real error itself.
        _log.debug("%s in a child process failed:\n%s", label, traceback.format_exc())
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def collect(child: Child, timeout: float, unpack: Callable[[Any], Any]) -> Handover | None:
    """The child's result, or None (then the caller does its share itself)."""
    if child.pid is None:
        return None
    if not child.wait(timeout):
        _log.warning("%s in a child process took over %.0f s; doing it here instead", child.label, timeout)
        child.stop()
        return None
    if not (os.WIFEXITED(child.status) and os.WEXITSTATUS(child.status) == 0 and os.path.exists(child.path)):
        _log.info("the child process for %s failed (exit code %d); doing it here", child.label,
                  os.waitstatus_to_exitcode(child.status))
        return None
    try:
        reading = time.monotonic()
        with open(child.path, "rb") as data:
            packed, work_s, writing_s = pickle.load(data)
        value = unpack(packed)
        return Handover(value, work_s, writing_s + time.monotonic() - reading)
    except Exception as error:  # noqa: BLE001 (the serial path raises any real error)
        _log.info("reading back %s failed (%s); doing it here", child.label, error)
        _log.debug("%s", traceback.format_exc())
        return None


def stand_in(value: Any) -> Any:
    """An empty tensor of the same kind, for a tensor that travels beside a serialized
    program (a Parameter stays one: torch.export's verifier checks)."""
    if not isinstance(value, torch.Tensor):
        return value
    empty = torch.empty(0, dtype=value.dtype)
    return torch.nn.Parameter(empty, requires_grad=False) if isinstance(value, torch.nn.Parameter) else empty


def tensor_tables(program) -> dict[str, dict]:
    """An ExportedProgram's tables of tensors, as KnownTensors.detach and attach take them."""
    return {"state_dict": program.state_dict, "constants": program.constants}


class KnownTensors:
    """Tensors the parent and its children both hold from before the fork, by names that
    both resolve: a result that holds them travels with the names only, and the parent
    puts its own objects back (the very ones a serial export would hold)."""

    def __init__(self, named: dict[str, torch.Tensor]):
        self._named = named
        self._names = {id(tensor): name for name, tensor in named.items()}

    def detach(self, tables: dict[str, dict]) -> tuple[dict, dict]:
        """Replaces every tensor in `tables` ({kind: {key: value}}) by a stand-in and
        returns (by_name, raw): {(kind, key): name} for the known ones, {(kind, key):
        tensor} for the others, which travel themselves."""
        by_name, raw = {}, {}
        for kind, table in tables.items():
            for key, value in table.items():
                if isinstance(value, torch.Tensor):
                    name = self._names.get(id(value))
                    if name is None:
                        raw[kind, key] = value
                    else:
                        by_name[kind, key] = name
                    table[key] = stand_in(value)
        return by_name, raw

    def attach(self, tables: dict[str, dict], by_name: dict, raw: dict) -> None:
        """Puts back what detach took out (`tables` the unpacked program's)."""
        for (kind, key), value in [*((k, self._named[name]) for k, name in by_name.items()), *raw.items()]:
            if key not in tables[kind]:
                raise RuntimeError(f"the serialized program lost its {kind} entry '{key}'")
            tables[kind][key] = value


def share_out(groups: list[list[str]], work: Callable[[list[str]], dict], pack: Callable[[dict], Any],
              unpack: Callable[[Any], dict], doing: str, done: str) -> dict:
    """work(group) for every group of methods, the first in this process and each other
    in a forked child; returns all results in one dict. A child that fails has its group
    done here. `doing` / `done` name the work in the log ("lowering" / "lowered")."""
    results: dict = {}
    with tempfile.TemporaryDirectory(prefix=f"pteforge-{doing}-") as scratch:
        children = [start(f"{doing} {', '.join(group)}", functools.partial(work, group), pack,
                          os.path.join(scratch, f"group{index}.pickle"))
                    for index, group in enumerate(groups[1:], start=1)]
        try:
            started = time.monotonic()
            results.update(work(groups[0]))
            own_s = time.monotonic() - started
            _log.info("%s %s here in %.1f s", done, ", ".join(groups[0]), own_s)
            for group, child in zip(groups[1:], children):
                handed = collect(child, child_timeout(own_s), unpack)
                if handed is None:
                    results.update(work(group))
                    continue
                _log.info("%s %s in a child process in %.1f s (handing it over: %.1f s)", done, ", ".join(group),
                          handed.work_s, handed.handover_s)
                results.update(handed.value)
        finally:
            for child in children:
                child.stop()
    return results
