// LogMel against transformers' WhisperFeatureExtractor (testdata/make_log_mel_golden.py):
// Whisper's 80 mels over 30 s, the tiny test models' 8 mels over 0.32 s, 128 mels, and
// silence, within 1e-4.
#include "cc/whisper/log_mel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "tools/cpp/runfiles/runfiles.h"

namespace pteforge {
namespace {

struct Case {
  int64_t n_mels = 0, window_samples = 0;
  std::vector<float> samples, features;
};

std::vector<Case> ReadGolden() {
  std::string error;
  std::unique_ptr<bazel::tools::cpp::runfiles::Runfiles> runfiles(
      bazel::tools::cpp::runfiles::Runfiles::CreateForTest(&error));
  EXPECT_TRUE(runfiles) << error;
  std::ifstream in(runfiles->Rlocation("pteforge/cc/whisper/testdata/log_mel_golden.bin"), std::ios::binary);
  EXPECT_TRUE(in.good());
  std::vector<Case> cases;
  int64_t header[3];
  while (in.read(reinterpret_cast<char*>(header), sizeof(header))) {
    Case c;
    c.n_mels = header[0];
    c.window_samples = header[1];
    c.samples.resize(header[2]);
    c.features.resize(c.n_mels * (c.window_samples / 160));
    in.read(reinterpret_cast<char*>(c.samples.data()), c.samples.size() * sizeof(float));
    in.read(reinterpret_cast<char*>(c.features.data()), c.features.size() * sizeof(float));
    cases.push_back(std::move(c));
  }
  return cases;
}

TEST(LogMel, EqualsWhisperFeatureExtractor) {
  std::vector<Case> cases = ReadGolden();
  ASSERT_EQ(cases.size(), 4u);
  for (const Case& c : cases) {
    LogMelOptions options;
    options.n_mels = c.n_mels;
    options.window_samples = c.window_samples;
    LogMel log_mel(options);
    std::vector<float> features = log_mel.Compute(c.samples.data(), c.samples.size());
    ASSERT_EQ(features.size(), c.features.size());
    const auto [low, high] = std::minmax_element(c.features.begin(), c.features.end());
    const bool silent = c.samples.end() == std::find_if(c.samples.begin(), c.samples.end(), [](float x) { return x; });
    EXPECT_TRUE(silent || *high - *low > 1.0f) << "the golden features of speech should vary";
    double worst = 0;
    for (size_t i = 0; i < features.size(); ++i) {
      worst = std::max(worst, std::fabs(static_cast<double>(features[i]) - c.features[i]));
    }
    EXPECT_LT(worst, 1e-4) << c.n_mels << " mels, " << c.window_samples << " samples";
    std::printf("%lld mels, %lld-sample window, %zu samples: max abs difference %.3g\n",
                static_cast<long long>(c.n_mels), static_cast<long long>(c.window_samples), c.samples.size(), worst);
  }
}

TEST(LogMel, SilenceIsTheFloor) {
  LogMelOptions options;
  options.n_mels = 8;
  options.window_samples = 3200;
  std::vector<float> silence(100, 0.0f);
  for (float value : LogMel(options).Compute(silence.data(), silence.size())) EXPECT_FLOAT_EQ(value, -1.5f);
}

}  // namespace
}  // namespace pteforge
