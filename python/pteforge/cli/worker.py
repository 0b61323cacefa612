"""The exporter as a Bazel persistent worker: one process runs export after export.

A cold build exports about forty programs; as separate processes each spent ~7 s of CPU
importing torch, ExecuTorch and transformers before its own work (more than a third of
a small export). Bazel starts `pteforge-export --persistent_worker` instead, once per
worker (bazel/pte_export.bzl asks for it with `supports-workers`), and sends each
export's command line as a WorkRequest on stdin; the answer, a WorkResponse, carries the
exit status and what the export printed. Without --persistent_worker the exporter runs
as before, the command line read from the @file Bazel writes (the same action runs
remotely or without workers).

Each export starts as a fresh process would: flags at their defaults, the model modules of the workspace imported again (a
worker outlives a change to them: Bazel restarts it only when the exporter itself
changes), the environment, sys.path, the working directory, warning filters and
pteforge's log handlers as they were; and torch's random generator where it stood when
the worker started (an export that draws unseeded numbers gets the same ones each time,
where new processes get new ones: the build's models seed theirs). The programs are
byte-identical to those of separate processes (//python/pteforge/cli:worker_test; the
build's 43 programs compared with a build without workers).

The protocol is Bazel's worker_protocol.proto, of which three fields of each message are
used; messages are length-delimited (a varint, then the bytes).
"""

from __future__ import annotations

import contextlib
import gc
import logging
import os
import sys
import tempfile
import traceback
import warnings
from typing import BinaryIO, Callable, Iterator


# --- worker_protocol.proto: WorkRequest {1: repeated string arguments, 3: int32 request_id},
# WorkResponse {1: int32 exit_code, 2: string output, 3: int32 request_id} ---------------

def _read_varint(read: Callable[[int], bytes]) -> int | None:
    value, shift = 0, 0
    while True:
        byte = read(1)
        if not byte:
            return None
        value |= (byte[0] & 0x7F) << shift
        if not byte[0] & 0x80:
            return value
        shift += 7


def _varint(value: int) -> bytes:
    value &= (1 << 64) - 1  # negative int32s are ten bytes, as protobuf writes them
    out = bytearray()
    while True:
        out.append((value & 0x7F) | (0x80 if value > 0x7F else 0))
        value >>= 7
        if not value:
            return bytes(out)


def parse_request(data: bytes) -> tuple[list[str], int]:
    """A WorkRequest's arguments and request_id; other fields are skipped."""
    arguments, request_id, position = [], 0, 0

    def read(count: int) -> bytes:
        nonlocal position
        chunk = data[position:position + count]
        position += len(chunk)
        return chunk

    while position < len(data):
        key = _read_varint(read)
        field, wire_type = key >> 3, key & 7
        if wire_type == 0:
            value = _read_varint(read)
            if field == 3:
                request_id = value
        elif wire_type == 2:
            payload = read(_read_varint(read))
            if field == 1:
                arguments.append(payload.decode("utf-8"))
        elif wire_type in (1, 5):
            read(8 if wire_type == 1 else 4)
        else:
            raise ValueError(f"WorkRequest: unknown wire type {wire_type}")
    return arguments, request_id


def encode_response(exit_code: int, output: str, request_id: int) -> bytes:
    """A WorkResponse, length-delimited."""
    text = output.encode("utf-8")
    body = (b"\x08" + _varint(exit_code) + b"\x12" + _varint(len(text)) + text +
            b"\x18" + _varint(request_id))
    return _varint(len(body)) + body


def read_request(stream: BinaryIO) -> bytes | None:
    """The next length-delimited message, or None at the end of the input."""
    size = _read_varint(stream.read)
    return None if size is None else stream.read(size)


# --- one export as if in a fresh process -------------------------------------------------

@contextlib.contextmanager
def _output_to(sink: BinaryIO) -> Iterator[None]:
    """File descriptors 1 and 2 (and sys.stdout, sys.stderr) into `sink` for the block."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    os.dup2(sink.fileno(), 1)
    os.dup2(sink.fileno(), 2)
    try:
        yield
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        os.close(saved[0])
        os.close(saved[1])


@contextlib.contextmanager
def _as_a_fresh_process(rng_state) -> Iterator[None]:
    """Runs the block with the process state a fresh exporter starts with, and puts back
    what it changed (see the module docstring)."""
    import torch

    modules = set(sys.modules)
    environ, path, cwd = dict(os.environ), list(sys.path), os.getcwd()
    filters = list(warnings.filters)
    ours = logging.getLogger("pteforge")
    handlers, level, propagate = list(ours.handlers), ours.level, ours.propagate
    torch.random.set_rng_state(rng_state)
    try:
        yield
    finally:
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(environ)
        sys.path[:] = path
        warnings.filters[:] = filters
        ours.handlers[:] = handlers
        ours.setLevel(level)
        ours.propagate = propagate
        # The workspace's modules (a model factory, a generated file) are read again next
        # time; the tool's own (in its runfiles) and installed packages stay imported.
        # (All decided before any goes: a package's __path__ without an __init__.py is
        # computed from its parent's, which must still be there.)
        for name in [name for name in set(sys.modules) - modules if _in_workspace(sys.modules[name], cwd)]:
            del sys.modules[name]
        torch._dynamo.reset()
        gc.collect()


def _in_workspace(module, workspace: str) -> bool:
    """Whether `module` was read from `workspace`, outside any runfiles tree. A package
    without an __init__.py (models/, models/silero_vad/) has no __file__ but its
    __path__: it goes too, or `from models.silero_vad import int8` would find the
    previous export's int8 as the package's attribute and never read the file again."""
    file = getattr(module, "__file__", None)
    places = [file] if file else list(getattr(module, "__path__", None) or [])
    return any(os.path.abspath(place).startswith(workspace + os.sep) and ".runfiles" + os.sep not in place
               for place in places)


def serve(run: Callable[[list[str]], int], stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> int:
    """Answers WorkRequests with `run(arguments)` until the input ends; returns 0.

    `run` is one export's main (flags parsed from its arguments, exit status returned)."""
    # Only WorkResponses may reach Bazel's end of stdout: the protocol gets its own copy
    # of the descriptor, and whatever else writes to file descriptor 1 goes to stderr
    # (Bazel keeps a worker's stderr in its log).
    requests = stdin or os.fdopen(os.dup(0), "rb")
    responses = stdout or os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    import torch  # the point of a worker: imported once

    rng_state = torch.random.get_rng_state()
    while True:
        message = read_request(requests)
        if message is None:
            return 0
        arguments, request_id = parse_request(message)
        with tempfile.TemporaryFile(prefix="pteforge-worker-") as log:
            with _output_to(log):
                try:
                    with _as_a_fresh_process(rng_state):
                        exit_code = run(arguments)
                except SystemExit as stop:
                    exit_code = stop.code if isinstance(stop.code, int) else 1
                except BaseException:  # an export's crash fails that action, not the worker
                    traceback.print_exc()
                    exit_code = 1
            log.seek(0)
            output = log.read().decode("utf-8", errors="replace")
        responses.write(encode_response(exit_code, output, request_id))
        responses.flush()
