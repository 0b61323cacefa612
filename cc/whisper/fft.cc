#include "cc/whisper/fft.h"

#include <algorithm>
#include <cmath>

namespace pteforge {
namespace {

constexpr double kPi = 3.14159265358979323846;

// a * b without std::complex's operator*, which (by C's Annex G rules) checks for
// infinities through a library call (__muldc3) and made the transform 2-3x slower.
std::complex<double> Multiply(std::complex<double> a, std::complex<double> b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}

}  // namespace

Fft::Fft(int64_t size) : size_(size) {
  for (int64_t rest = size, p = 2; rest > 1;) {
    if (rest % p == 0) {
      factors_.push_back(p);
      rest /= p;
    } else {
      p = p * p > rest ? rest : p + 1;  // no factor up to sqrt(rest): rest is prime
    }
  }
  if (factors_.empty()) factors_.push_back(1);  // size 1: the identity
  lengths_.resize(factors_.size());
  int64_t length = 1;
  for (size_t s = factors_.size(); s-- > 0;) {
    length *= factors_[s];
    lengths_[s] = length;
  }
  roots_.resize(size_);
  for (int64_t t = 0; t < size_; ++t) roots_[t] = std::polar(1.0, -2.0 * kPi * static_cast<double>(t) / size_);
}

void Fft::Transform(const double* input, std::complex<double>* output) const {
  std::vector<std::complex<double>> scratch(*std::max_element(factors_.begin(), factors_.end()));
  Stage(0, input, 1, output, scratch.data());
}

void Fft::Stage(size_t stage, const double* input, int64_t stride, std::complex<double>* output,
                std::complex<double>* scratch) const {
  const int64_t p = factors_[stage], m = lengths_[stage] / p;
  // The p interleaved sub-sequences input[r * stride + j * p * stride], each's DFT of
  // length m into output[r * m ...].
  for (int64_t r = 0; r < p; ++r) {
    if (m == 1) {
      output[r] = input[r * stride];
    } else {
      Stage(stage + 1, input + r * stride, stride * p, output + r * m, scratch);
    }
  }
  if (p == 1) return;
  // The butterflies: X[k + q m] = sum_r W^(r (k + q m)) Y_r[k], W = e^(-2 pi i / (p m)),
  // which is roots_[stride] (p m = size / stride).
  const int64_t length = p * m;
  if (p == 2) {  // the same sums, with W^m = -1: one product per pair
    for (int64_t k = 0; k < m; ++k) {
      const std::complex<double> a = output[k], b = Multiply(output[k + m], roots_[k * stride]);
      output[k] = a + b;
      output[k + m] = a - b;
    }
    return;
  }
  for (int64_t k = 0; k < m; ++k) {
    for (int64_t r = 0; r < p; ++r) scratch[r] = output[k + r * m];
    for (int64_t q = 0; q < p; ++q) {
      const int64_t index = k + q * m;
      std::complex<double> sum = scratch[0];
      for (int64_t r = 1, t = index; r < p; ++r) {  // t = r * index mod length, without a division
        sum += Multiply(scratch[r], roots_[t * stride]);
        t += index;
        if (t >= length) t -= length;
      }
      output[index] = sum;
    }
  }
}

}  // namespace pteforge
