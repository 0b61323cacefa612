// Fft against the DFT by its definition (in long double), for sizes with small, large
// and repeated prime factors, Whisper's 400 among them.
#include "cc/whisper/fft.h"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <random>
#include <vector>

namespace pteforge {
namespace {

std::vector<std::complex<long double>> Dft(const std::vector<double>& x) {
  const int64_t n = static_cast<int64_t>(x.size());
  const long double pi = 3.141592653589793238462643383279502884L;
  std::vector<std::complex<long double>> out(n);
  for (int64_t k = 0; k < n; ++k) {
    for (int64_t j = 0; j < n; ++j) {
      out[k] += static_cast<long double>(x[j]) * std::polar(1.0L, -2 * pi * ((j * k) % n) / n);
    }
  }
  return out;
}

TEST(Fft, EqualsTheDft) {
  std::mt19937 random(49);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  for (int64_t n : {1, 2, 3, 5, 7, 8, 12, 30, 97, 128, 400, 512, 1000}) {
    std::vector<double> x(n);
    double total = 0;
    for (double& value : x) total += std::fabs(value = uniform(random));
    const Fft fft(n);
    ASSERT_EQ(fft.size(), n);
    std::vector<std::complex<double>> out(n);
    fft.Transform(x.data(), out.data());
    const std::vector<std::complex<long double>> expected = Dft(x);
    double worst = 0;
    for (int64_t k = 0; k < n; ++k) {
      worst = std::max(worst, static_cast<double>(std::abs(std::complex<long double>(out[k]) - expected[k])));
    }
    // Rounding grows with log n; 1e-14 of the sum bounds it with room for the 13 sizes.
    EXPECT_LT(worst, 1e-14 * total) << "size " << n;
  }
}

TEST(Fft, ImpulseAndConstant) {
  const Fft fft(400);
  std::vector<double> impulse(400, 0.0), constant(400, 1.0);
  impulse[3] = 1.0;  // X[k] = e^(-2 pi i 3k / 400): magnitude 1 everywhere
  std::vector<std::complex<double>> out(400);
  fft.Transform(impulse.data(), out.data());
  for (const auto& value : out) EXPECT_NEAR(std::abs(value), 1.0, 1e-14);
  fft.Transform(constant.data(), out.data());  // all in bin 0
  EXPECT_NEAR(out[0].real(), 400.0, 1e-12);
  for (int64_t k = 1; k < 400; ++k) EXPECT_NEAR(std::abs(out[k]), 0.0, 1e-12) << k;
}

}  // namespace
}  // namespace pteforge
