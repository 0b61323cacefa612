#include "cc/kernels/stft.h"

#include <cmath>

namespace pteforge {
namespace kernels {

namespace {

// Written out rather than std::complex<double>, whose product goes through __muldc3
// (C99's infinity rules) unless the whole file gives them up.
struct Complex {
  double re;
  double im;
};

// log2 of a power of two.
int Log2(int64_t n) {
  int bits = 0;
  while ((int64_t{1} << bits) < n) ++bits;
  return bits;
}

// `bits` low bits of t in reverse order.
int64_t Reversed(int64_t t, int bits) {
  int64_t r = 0;
  for (int b = 0; b < bits; ++b) r |= ((t >> b) & 1) << (bits - 1 - b);
  return r;
}

// The DFT of a[0 .. n) in place (n a power of two, a in bit-reversed order): iterative
// radix-2 decimation in time. Each stage's root e^(-2 pi i / m) comes from the
// previous one's by the half-angle formulas, cos(x / 2) = sqrt((1 + cos x) / 2) and
// sin(x / 2) = sin x / (2 cos(x / 2)), starting from x = pi / 2 (m = 4) exactly; the
// powers within a stage by repeated products (relative error about m / 2 ulps of a
// double, far below float32's).
void Transform(Complex* a, int64_t n) {
  double c = 0.0, s = 1.0;  // cos and sin of 2 pi / m, for m = 4
  for (int64_t m = 2; m <= n; m *= 2) {
    Complex root;
    if (m == 2) {
      root = {-1.0, 0.0};
    } else {
      if (m > 4) {
        c = std::sqrt((1.0 + c) / 2.0);
        s = s / (2.0 * c);
      }
      root = {c, -s};
    }
    const int64_t half = m / 2;
    for (int64_t start = 0; start < n; start += m) {
      Complex w = {1.0, 0.0};
      for (int64_t j = 0; j < half; ++j) {
        Complex& u = a[start + j];
        Complex& v = a[start + j + half];
        const Complex t = {w.re * v.re - w.im * v.im, w.re * v.im + w.im * v.re};
        v = {u.re - t.re, u.im - t.im};
        u = {u.re + t.re, u.im + t.im};
        w = {w.re * root.re - w.im * root.im, w.re * root.im + w.im * root.re};
      }
    }
  }
}

}  // namespace

int64_t StftFrames(const StftShape& shape) { return (shape.length - shape.window) / shape.hop + 1; }

int64_t StftBins(const StftShape& shape) { return shape.window / 2 + 1; }

size_t StftScratchBytes(const StftShape& shape) { return static_cast<size_t>(shape.window) * sizeof(Complex); }

void StftMagnitude(const StftShape& shape, const float* signal, const float* window, void* scratch, float* out) {
  Complex* spectrum = static_cast<Complex*>(scratch);
  const int64_t n = shape.window;
  const int bits = Log2(n);
  const int64_t frames = StftFrames(shape);
  const int64_t bins = StftBins(shape);
  for (int64_t b = 0; b < shape.batch; ++b) {
    for (int64_t f = 0; f < frames; ++f) {
      const float* x = signal + b * shape.length + f * shape.hop;
      // A product of two floats is exact in double.
      for (int64_t t = 0; t < n; ++t) {
        spectrum[Reversed(t, bits)] = {static_cast<double>(x[t]) * static_cast<double>(window[t]), 0.0};
      }
      Transform(spectrum, n);
      float* row = out + (b * frames + f) * bins;
      for (int64_t k = 0; k < bins; ++k) {
        const Complex& value = spectrum[k];
        row[k] = static_cast<float>(std::sqrt(value.re * value.re + value.im * value.im));
      }
    }
  }
}

}  // namespace kernels
}  // namespace pteforge
