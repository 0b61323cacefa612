"""ExecuTorch's quantized kernels (quantized_decomposed::*) in its Python runtime.

The executorch wheel's Python runtime registers the portable kernels only; the
quantized ones (embedding_byte, which pteforge.lower.quantize's int8 embeddings run, and the
per-tensor / per-token quantize and dequantize operators) are in the wheel's
libexecutorch_kernels_quantized.so, the library the C++ tools link. Loaded into the
process, its static initializer registers them with the runtime's libexecutorch.so.
"""

from __future__ import annotations

import ctypes
import functools
import os

from pteforge.support.errors import ExportError

# How a program names these operators (flatbuffer strings).
MARKER = b"quantized_decomposed::"
_LIBRARY = "libexecutorch_kernels_quantized.so"


@functools.cache
def load() -> str:
    """Registers the wheel's quantized kernels (once per process); returns the path.

    Raises:
      ExportError: the wheel has no such library.
    """
    # The Python runtime first: its libexecutorch.so is then the one the library binds to.
    from executorch.extension.pybindings import portable_lib

    wheel = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(portable_lib.__file__))))
    path = os.path.join(wheel, "lib", _LIBRARY)
    try:
        ctypes.CDLL(path)
    except OSError as error:
        raise ExportError(f"this program uses ExecuTorch's quantized operators, and their kernels cannot be "
                          f"loaded from the executorch wheel ({path}): {error}") from error
    return path
