"""Keeps what pteforge's dependencies print out of pteforge's output, unless asked for.

A successful export prints pteforge's own progress and summary, nothing else; a failed
one prints its one ExportError. torch, torchao and ExecuTorch otherwise print a good
deal on the way: Python warnings (FutureWarning, UserWarning), log lines (`W1124 ...
export_serialize.py`, `E1124 ... _guards.py` guard dumps before an error), and from
C++ ExecuTorch's runtime log (`[cpuinfo_utils.cpp:109] Failed to open midr file`).

  quiet_dependencies()   first thing in a program: mutes import-time noise
  held_back()            around pteforge's work (the exporter uses it): every Python
                         warning, every log record of a logger outside "pteforge" and
                         every print to sys.stderr (torch.export prints the graph it
                         failed on) is dropped while it runs; handlers made before it,
                         such as pteforge's own, keep their stream
  captured_stderr()      around calls into ExecuTorch's C++ runtime: what it writes to
                         the process's stderr (file descriptor 2) is kept aside; the
                         caller puts it into its error message if the call fails

`set_verbose(True)` (the CLIs' --verbose, or PTEFORGE_VERBOSE=1 in the environment)
turns all of this off: everything is shown as it happens.

This module must not import torch or executorch (tools call it before importing them).
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import sys
import tempfile
import warnings
from typing import Iterator

_verbose = os.environ.get("PTEFORGE_VERBOSE", "") not in ("", "0")

# Parents of the loggers that print during an export; held to ERROR+ while pteforge works
# (besides the handler filter below), so that their records are not even formatted.
_NOISY_LOGGERS = ("torch", "torchao", "executorch", "transformers")


def set_verbose(verbose: bool) -> None:
    """Shows (True) or holds back (False, the default) what dependencies print."""
    global _verbose
    _verbose = bool(verbose)


def is_verbose() -> bool:
    """Whether dependencies' output is shown (set_verbose, PTEFORGE_VERBOSE)."""
    return _verbose


def quiet_dependencies() -> None:
    """Mutes the known irrelevant import-time noise (each named below), unless verbose.

    Call it first thing in a program's main, before torch/executorch are imported."""
    if _verbose:
        return
    # torchao, imported by executorch, warns that its CUDA kernels do not load on a
    # CPU-only machine, and registers enums through a deprecated torch API.
    logging.getLogger("torchao").setLevel(logging.ERROR)
    logging.getLogger("torch.utils._pytree").setLevel(logging.ERROR)
    # Deprecation notices from inside torch/executorch/transformers.
    warnings.filterwarnings("ignore", category=FutureWarning)
    # pteforge initializes mutated buffers itself (reset_state), so ExecuTorch's advice
    # to run InitializedMutableBufferPass does not apply.
    warnings.filterwarnings("ignore", message="Mutation on a buffer in the model is detected")
    # transformers' and huggingface_hub's progress bars ("Loading weights: 100%|...");
    # read when they are imported.
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")


class _KnownImportNoise(logging.Filter):
    """Drops the log records torch and torchao emit when they are imported (named in
    quiet_dependencies), unless verbose."""

    _MESSAGES = ("Failed to load ", "is an Enum subclass and is now natively supported")

    def filter(self, record: logging.LogRecord) -> bool:
        return _verbose or not any(text in str(record.msg) for text in self._MESSAGES)


def hold_back_import_noise() -> None:
    """For programs that use pteforge as a library (the CLIs call quiet_dependencies):
    the import-time lines of torchao and torch are dropped, unless verbose, wherever
    they are first imported. Only those records: nothing else of the program's
    logging or warnings changes."""
    for name in ("torchao", "torch.utils._pytree"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, _KnownImportNoise) for f in logger.filters):
            logger.addFilter(_KnownImportNoise())


class _OnlyPteforge(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return record.name == "pteforge" or record.name.startswith("pteforge.")


@contextlib.contextmanager
def held_back() -> Iterator[None]:
    """Drops Python warnings, other libraries' log records and prints to sys.stderr
    while the block runs.

    pteforge's own records (the "pteforge" logger) pass, through the handlers that
    existed before (a StreamHandler keeps the stream it was made with); nothing is
    changed when verbose. Nests.
    """
    if _verbose:
        yield
        return
    only_pteforge = _OnlyPteforge()
    handlers = {id(h): h for h in logging.getLogger().handlers}
    for logger in list(logging.Logger.manager.loggerDict.values()):
        if isinstance(logger, logging.Logger):
            handlers.update((id(h), h) for h in logger.handlers)
    levels = {name: logging.getLogger(name).level for name in _NOISY_LOGGERS}
    for handler in handlers.values():
        handler.addFilter(only_pteforge)
    for name in _NOISY_LOGGERS:
        logging.getLogger(name).setLevel(max(levels[name], logging.CRITICAL + 1))
    try:
        with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()):
            warnings.simplefilter("ignore")
            yield
    finally:
        for handler in handlers.values():
            handler.removeFilter(only_pteforge)
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)


class CapturedStderr:
    """What C/C++ code wrote to file descriptor 2 inside captured_stderr()."""

    def __init__(self) -> None:
        self.text = ""

    def lines(self, limit: int = 20) -> str:
        """The last `limit` non-empty lines, for an error message ("" if none)."""
        kept = [line for line in self.text.splitlines() if line.strip()]
        return "\n".join(kept[-limit:])


# One file reused by every capture (a capture inside another adds nothing: the outer
# one holds what is written), so a call costs a few system calls, not a new file.
_capture_file = None
_capture_depth = 0


@contextlib.contextmanager
def captured_stderr() -> Iterator[CapturedStderr]:
    """Sends what is written to file descriptor 2 into a buffer while the block runs.

    For calls into C++ (ExecuTorch's runtime log goes straight to fd 2, past Python).
    Python's sys.stderr is flushed first so nothing of ours is caught. When verbose,
    inside another capture, or where fd 2 cannot be redirected, output goes where it
    would go anyway and this capture stays empty.
    """
    global _capture_file, _capture_depth
    captured = CapturedStderr()
    if _verbose or _capture_depth:
        yield captured
        return
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError, AttributeError):
        yield captured
        return
    if _capture_file is None:
        _capture_file = tempfile.TemporaryFile()
    _capture_file.seek(0)
    _capture_file.truncate()
    _capture_depth += 1
    # ExecuTorch's Python runtime prints its log through Python's sys.stderr when it has
    # one, straight to fd 2 otherwise: both are kept (held_back() makes sys.stderr a
    # buffer of its own, which would swallow the log).
    through_python = io.StringIO()
    try:
        os.dup2(_capture_file.fileno(), 2)
        with contextlib.redirect_stderr(through_python):
            yield captured
    finally:
        _capture_depth -= 1
        os.dup2(saved, 2)
        os.close(saved)
        _capture_file.seek(0)
        captured.text = through_python.getvalue() + _capture_file.read().decode("utf-8", errors="replace")
