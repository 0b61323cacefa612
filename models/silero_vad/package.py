"""Where the Silero VAD weights are: the installed `silero-vad` package (pinned in
third_party/python/requirements_lock.txt) ships them in `silero_vad/data`; pteforge
reads them in place and never copies them into the repository.

The package is found without importing it (its import sets torch's thread count as a
side effect): only its location is needed here.
"""

from __future__ import annotations

import importlib.util
import os

# The v6 model with its 16 kHz and 8 kHz submodels: what load_silero_vad() loads.
# (silero_vad_16k.safetensors in the same folder holds different, older weights.)
JIT_FILE = "silero_vad.jit"
# What silero's OnnxWrapper runs for load_silero_vad(onnx=True) (both rates).
ONNX_FILE = "silero_vad.onnx"


class ModelNotFound(FileNotFoundError):
    """The package or one of its files is missing; says what to install."""


def data_directory() -> str:
    """The package's data folder."""
    spec = importlib.util.find_spec("silero_vad")
    if spec is None or not spec.submodule_search_locations:
        raise ModelNotFound("the silero-vad package is not installed: it ships the Silero VAD weights "
                            "(./bazelw installs it from third_party/python/requirements_lock.txt)")
    return os.path.join(list(spec.submodule_search_locations)[0], "data")


def find(file_name: str = JIT_FILE) -> str:
    """The path of one of the package's model files (default: the jit)."""
    path = os.path.join(data_directory(), file_name)
    if not os.path.isfile(path):
        raise ModelNotFound(f"{path} is missing from the silero-vad package (reinstall it: ./bazelw does)")
    return path
