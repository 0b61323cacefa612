// The arithmetic of pteforge::stft_magnitude (python/pteforge/cortex_m/stft_op.py has its
// definition in eager PyTorch): the magnitude of a windowed short-time Fourier transform,
// computed with a radix-2 FFT instead of multiplying every frame by a stored
// [2 (L/2 + 1), L] basis (Silero VAD's STFT: a 66 KB constant even in int8).
//
// In double precision, rounded to float32 once at the end, as the eager definition. Only
// IEEE operations that round exactly (+, -, *, /, sqrt) are used: the twiddle factors
// come from half-angle recurrences, not the C library's cos and sin, whose last bits
// differ between glibc and newlib. Compiled with -ffp-contract=off, every target gives
// the same bits.
#ifndef PTEFORGE_CC_KERNELS_STFT_H_
#define PTEFORGE_CC_KERNELS_STFT_H_

#include <cstddef>
#include <cstdint>

namespace pteforge {
namespace kernels {

struct StftShape {
  int64_t batch;   // independent signals
  int64_t length;  // samples per signal, >= window
  int64_t window;  // L: a power of two, >= 1
  int64_t hop;     // samples between frames, >= 1
};

// Frames per signal: (length - window) / hop + 1.
int64_t StftFrames(const StftShape& shape);

// Bins per frame: window / 2 + 1.
int64_t StftBins(const StftShape& shape);

// Scratch StftMagnitude needs, in bytes (one frame's complex spectrum), aligned to 8.
size_t StftScratchBytes(const StftShape& shape);

// For each signal b and frame f, with x = signal[b, f * hop + t] * window[t] (t < L):
//   out[b, f, k] = | sum_t x[t] e^(-2 pi i k t / L) |,  k = 0 .. L / 2
// signal [batch, length], window [L], out [batch, frames, bins], scratch
// StftScratchBytes(shape) bytes.
void StftMagnitude(const StftShape& shape, const float* signal, const float* window, void* scratch, float* out);

}  // namespace kernels
}  // namespace pteforge

#endif  // PTEFORGE_CC_KERNELS_STFT_H_
