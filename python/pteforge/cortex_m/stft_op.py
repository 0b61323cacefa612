"""pteforge::stft_magnitude: the magnitude of a windowed short-time Fourier transform.

    stft_magnitude(signal [..., n], window [L], hop) -> [..., F, L // 2 + 1]

With F = (n - L) // hop + 1 frames, frame f of a signal is x[t] = signal[f * hop + t] *
window[t] (t < L), and

    out[..., f, k] = | sum_t x[t] e^(-2 pi i k t / L) |       (k = 0 .. L / 2)

computed in double precision and rounded to float32 once: torch.stft's magnitude with
center=False, time before frequency. L must be a power of two. The kernel
(cc/kernels/stft.h) is an FFT of each frame on every target, with no CMSIS-NN: what a
model computing its spectrum as a product with a stored [2 (L/2 + 1), L] basis (Silero
VAD: 66 KB even in int8) can compute instead on a microcontroller, from a window of L
floats. The FFT's double-precision sums run in another order than the eager
definition's, far below float32's rounding: they agree to the last bit but for a
value that lands on a rounding boundary.

Import this module before tracing or running a module that calls the operator.
"""

from __future__ import annotations

import torch

from pteforge.support import custom_ops

NAMESPACE = "pteforge"
NAME = "stft_magnitude"
SCHEMA = "stft_magnitude(Tensor signal, Tensor window, int hop) -> Tensor"

# A fragment: pteforge.cortex_m.ops defines the namespace's other operators.
_library = torch.library.Library(NAMESPACE, "FRAGMENT")


def _check(signal: torch.Tensor, window: torch.Tensor, hop: int) -> None:
    torch._check(signal.dtype == torch.float32 and window.dtype == torch.float32,
                 lambda: f"pteforge::stft_magnitude: signal and window must be float32, got {signal.dtype}, {window.dtype}")
    torch._check(signal.dim() >= 1 and window.dim() == 1,
                 lambda: f"pteforge::stft_magnitude: signal [..., n] and window [L], got {list(signal.shape)}, "
                         f"{list(window.shape)}")
    length = window.shape[0]
    torch._check(length >= 1 and length & (length - 1) == 0 and length <= signal.shape[-1],
                 lambda: f"pteforge::stft_magnitude: the window's length ({length}) must be a power of two, at most "
                         f"the signal's ({signal.shape[-1]})")
    torch._check(hop >= 1, lambda: f"pteforge::stft_magnitude: hop must be >= 1, got {hop}")


def _shape(signal: torch.Tensor, window: torch.Tensor, hop: int) -> tuple[int, ...]:
    length = window.shape[0]
    return (*signal.shape[:-1], (signal.shape[-1] - length) // hop + 1, length // 2 + 1)


def stft_magnitude_reference(signal: torch.Tensor, window: torch.Tensor, hop: int) -> torch.Tensor:
    """pteforge::stft_magnitude in eager PyTorch (see the module docstring)."""
    _check(signal, window, hop)
    frames = signal.double().unfold(-1, window.shape[0], hop)
    return torch.fft.rfft(frames * window.double(), dim=-1).abs().float()


def _fake(signal: torch.Tensor, window: torch.Tensor, hop: int) -> torch.Tensor:
    _check(signal, window, hop)
    return signal.new_empty(_shape(signal, window, hop))


# How a program names the operator (namespace::name.overload).
PROGRAM_OPERATOR = custom_ops.define(_library, NAME, SCHEMA, stft_magnitude_reference, _fake)
