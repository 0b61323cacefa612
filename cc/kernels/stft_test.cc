// StftMagnitude against the DFT written out in long double with the C library's cos and
// sin: window lengths 1 to 512, hops shorter and longer than the window, several
// signals, a last frame that leaves samples over. Within one float32 rounding of the
// exact magnitude, which every value but a rare one on a rounding boundary equals.
#include "cc/kernels/stft.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace pteforge {
namespace kernels {
namespace {

struct Case {
  int64_t batch, length, window, hop;
};

// The exact magnitude, rounded to float32 once.
std::vector<float> Direct(const StftShape& shape, const std::vector<float>& signal, const std::vector<float>& window) {
  const int64_t frames = StftFrames(shape), bins = StftBins(shape), n = shape.window;
  const long double pi = std::acos(-1.0L);
  std::vector<float> out;
  for (int64_t b = 0; b < shape.batch; ++b) {
    for (int64_t f = 0; f < frames; ++f) {
      for (int64_t k = 0; k < bins; ++k) {
        long double re = 0, im = 0;
        for (int64_t t = 0; t < n; ++t) {
          const long double x = static_cast<long double>(signal[b * shape.length + f * shape.hop + t]) * window[t];
          const long double angle = -2 * pi * static_cast<long double>((k * t) % n) / n;
          re += x * std::cos(angle);
          im += x * std::sin(angle);
        }
        out.push_back(static_cast<float>(std::sqrt(re * re + im * im)));
      }
    }
  }
  return out;
}

TEST(StftMagnitude, IsTheWindowedDftMagnitude) {
  std::mt19937 random(7);
  std::normal_distribution<float> normal;
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  int64_t values = 0, differing = 0;
  for (const Case& c : {Case{1, 1, 1, 1}, Case{1, 2, 2, 1}, Case{2, 9, 4, 3}, Case{1, 640, 256, 128},
                        Case{3, 300, 128, 64}, Case{1, 1100, 512, 600}, Case{2, 40, 8, 1}}) {
    const StftShape shape = {c.batch, c.length, c.window, c.hop};
    std::vector<float> signal(c.batch * c.length), window(c.window);
    for (float& x : signal) x = normal(random);
    for (float& w : window) w = uniform(random);
    std::vector<float> out(shape.batch * StftFrames(shape) * StftBins(shape), -1.0f);
    std::vector<char> scratch(StftScratchBytes(shape) + 8);
    void* aligned = scratch.data() + (8 - reinterpret_cast<uintptr_t>(scratch.data()) % 8) % 8;
    StftMagnitude(shape, signal.data(), window.data(), aligned, out.data());
    const std::vector<float> expected = Direct(shape, signal, window);
    ASSERT_EQ(out.size(), expected.size());
    for (size_t i = 0; i < out.size(); ++i) {
      ASSERT_LE(std::fabs(out[i] - expected[i]), std::nextafter(expected[i], INFINITY) - expected[i])
          << "window " << c.window << " hop " << c.hop << " value " << i;
      differing += out[i] != expected[i];
    }
    values += static_cast<int64_t>(out.size());
  }
  EXPECT_LE(differing * 1000, values) << differing << " of " << values << " values a rounding off";
}

TEST(StftMagnitude, FramesAndBins) {
  EXPECT_EQ(StftFrames({1, 640, 256, 128}), 4);
  EXPECT_EQ(StftBins({1, 640, 256, 128}), 129);
  EXPECT_EQ(StftFrames({1, 300, 256, 128}), 1);  // 44 samples left over
  EXPECT_EQ(StftScratchBytes({1, 640, 256, 128}), 256u * 16u);
}

}  // namespace
}  // namespace kernels
}  // namespace pteforge
