"""Where the Silero VAD weights are: the installed `silero-vad` package (pinned in
third_party/python/requirements_lock.txt) ships them in `silero_vad/data`; pteforge
reads them in place and never copies them into the repository.

The package is found without importing it (its import sets torch's thread count as a
side effect): only its location is needed here.
"""

from __future__ import annotations

import os

from pteforge.support.packages import PackageFileNotFound, package_file, package_folder

# The v6 model with its 16 kHz and 8 kHz submodels: what load_silero_vad() loads.
# (silero_vad_16k.safetensors in the same folder holds different, older weights.)
JIT_FILE = "silero_vad.jit"
# What silero's OnnxWrapper runs for load_silero_vad(onnx=True) (both rates).
ONNX_FILE = "silero_vad.onnx"


# The package or one of its files is missing (the message says what to install).
ModelNotFound = PackageFileNotFound


def data_directory() -> str:
    """The package's data folder."""
    return os.path.join(package_folder("silero_vad", "silero-vad", "the Silero VAD weights"), "data")


def find(file_name: str = JIT_FILE) -> str:
    """The path of one of the package's model files (default: the jit)."""
    return package_file(data_directory(), file_name, "silero-vad")
