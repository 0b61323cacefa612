// A fast Fourier transform of real samples, for the log-mel's short-time spectra
// (log_mel.h): Whisper's 400-sample frames are 2^4 x 5^2, which no power-of-two FFT
// fits, and the direct DFT (n x (n/2 + 1) products a frame) made a 30 s window cost
// about 0.3 s.
//
//   Fft fft(400);
//   std::vector<std::complex<double>> spectrum(fft.size());
//   fft.Transform(frame.data(), spectrum.data());   // X[k] = sum_j x[j] e^(-2 pi i jk / n)
//
// Mixed-radix Cooley-Tukey, decimation in time, recursive (as KISS FFT's kf_work): n is
// split into its prime factors, each stage a generic radix-p butterfly (p^2 products per
// p outputs). Exact for any n; fast when the factors are small (a prime n is the DFT).
// In double precision, the twiddles from one table of n roots of unity.
#ifndef PTEFORGE_CC_WHISPER_FFT_H_
#define PTEFORGE_CC_WHISPER_FFT_H_

#include <complex>
#include <cstdint>
#include <vector>

namespace pteforge {

class Fft {
 public:
  explicit Fft(int64_t size);  // size >= 1

  // The DFT of `size` real values into `size` complex ones (all of them: a real
  // input's upper half mirrors the lower, X[n - k] = conj(X[k])).
  void Transform(const double* input, std::complex<double>* output) const;

  int64_t size() const { return size_; }

 private:
  // One stage: the DFT of the `lengths_[stage]` inputs input[0], input[stride], ...
  // into output[0 .. lengths_[stage]).
  void Stage(size_t stage, const double* input, int64_t stride, std::complex<double>* output,
             std::complex<double>* scratch) const;

  int64_t size_;
  std::vector<int64_t> factors_;            // the prime factors of size, smallest first
  std::vector<int64_t> lengths_;            // lengths_[s] = product of factors_[s..]
  std::vector<std::complex<double>> roots_;  // e^(-2 pi i t / size), t < size
};

}  // namespace pteforge

#endif  // PTEFORGE_CC_WHISPER_FFT_H_
