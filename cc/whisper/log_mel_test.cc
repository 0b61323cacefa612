// LogMel against transformers' WhisperFeatureExtractor (testdata/make_log_mel_golden.py):
// Whisper's 80 mels over 30 s, the tiny test models' 8 mels over 0.32 s, 128 mels, and
// silence, within 1e-4; ComputeAll and Window against faster-whisper's FeatureExtractor
// and pad_or_trim (testdata/make_faster_whisper_log_mel_golden.py): a whole file, a cut,
// 39.6 s (three windows, one clamp), silence, inputs shorter than n_fft, none, 128 mels,
// within 1e-4 (faster-whisper computes in float32: about 1e-5 apart).
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

std::ifstream OpenTestdata(const std::string& name) {
  std::string error;
  std::unique_ptr<bazel::tools::cpp::runfiles::Runfiles> runfiles(
      bazel::tools::cpp::runfiles::Runfiles::CreateForTest(&error));
  EXPECT_TRUE(runfiles) << error;
  std::ifstream in(runfiles->Rlocation("pteforge/cc/whisper/testdata/" + name), std::ios::binary);
  EXPECT_TRUE(in.good()) << name;
  return in;
}

double MaxAbsDifference(const std::vector<float>& a, const std::vector<float>& b) {
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::fabs(static_cast<double>(a[i]) - b[i]));
  return worst;
}

std::vector<Case> ReadGolden() {
  std::ifstream in = OpenTestdata("log_mel_golden.bin");
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
    const double worst = MaxAbsDifference(features, c.features);
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

// faster-whisper's convention (make_faster_whisper_log_mel_golden.py's cases).
struct WholeFileCase {
  int64_t n_mels = 0, frames = 0;
  std::vector<float> samples, features;
  struct Window {
    int64_t seek = 0, size = 0;
    std::vector<float> features;  // [n_mels, 3000]
  };
  std::vector<Window> windows;
};

constexpr int64_t kWindowFrames = 3000;  // faster-whisper's nb_max_frames

std::vector<WholeFileCase> ReadFasterWhisperGolden() {
  std::ifstream in = OpenTestdata("faster_whisper_log_mel_golden.bin");
  std::vector<WholeFileCase> cases;
  int64_t header[4];
  while (in.read(reinterpret_cast<char*>(header), sizeof(header))) {
    WholeFileCase c;
    c.n_mels = header[0];
    c.samples.resize(header[1]);
    c.frames = header[2];
    c.features.resize(c.n_mels * c.frames);
    in.read(reinterpret_cast<char*>(c.samples.data()), c.samples.size() * sizeof(float));
    in.read(reinterpret_cast<char*>(c.features.data()), c.features.size() * sizeof(float));
    c.windows.resize(header[3]);
    for (WholeFileCase::Window& window : c.windows) {
      int64_t where[2];
      in.read(reinterpret_cast<char*>(where), sizeof(where));
      window.seek = where[0];
      window.size = where[1];
      window.features.resize(c.n_mels * kWindowFrames);
      in.read(reinterpret_cast<char*>(window.features.data()), window.features.size() * sizeof(float));
    }
    EXPECT_TRUE(in.good());
    cases.push_back(std::move(c));
  }
  return cases;
}

LogMel WhisperLogMel(int64_t n_mels) {
  LogMelOptions options;  // 16 kHz, n_fft 400, hop 160, 30 s windows
  options.n_mels = n_mels;
  return LogMel(options);
}

TEST(LogMel, ComputeAllAndWindowEqualFasterWhisper) {
  const std::vector<WholeFileCase> cases = ReadFasterWhisperGolden();
  ASSERT_EQ(cases.size(), 8u);
  for (const WholeFileCase& c : cases) {
    const LogMel log_mel = WhisperLogMel(c.n_mels);
    ASSERT_EQ(log_mel.frames(), kWindowFrames);
    const Spectrogram all = log_mel.ComputeAll(c.samples.data(), c.samples.size());
    EXPECT_EQ(all.n_mels, c.n_mels);
    // 160 zeros appended, a frame every 160 samples, the last dropped.
    EXPECT_EQ(all.frames, static_cast<int64_t>((c.samples.size() + 160) / 160));
    ASSERT_EQ(all.frames, c.frames);
    ASSERT_EQ(all.values.size(), c.features.size());
    const double worst = MaxAbsDifference(all.values, c.features);
    EXPECT_LT(worst, 1e-4) << c.samples.size() << " samples, " << c.n_mels << " mels";
    std::printf("ComputeAll, %lld mels, %zu samples, %lld frames: max abs difference %.3g\n",
                static_cast<long long>(c.n_mels), c.samples.size(), static_cast<long long>(all.frames), worst);
    for (const WholeFileCase::Window& expected : c.windows) {
      const std::vector<float> window = log_mel.Window(all, expected.seek, expected.size);
      ASSERT_EQ(window.size(), expected.features.size());
      const double window_worst = MaxAbsDifference(window, expected.features);
      EXPECT_LT(window_worst, 1e-4) << "window at " << expected.seek << ", " << expected.size << " frames";
      std::printf("  Window(%lld, %lld): max abs difference %.3g\n", static_cast<long long>(expected.seek),
                  static_cast<long long>(expected.size), window_worst);
    }
  }
}

// What the golden cases are there to show: the speech varies, silence and nothing are
// the floor, and on the 39.6 s case the file's one clamp makes the first window
// differ from transformers' convention on the same 30 s.
TEST(LogMel, FasterWhisperCasesExerciseTheConvention) {
  const std::vector<WholeFileCase> cases = ReadFasterWhisperGolden();
  ASSERT_EQ(cases.size(), 8u);
  const auto [low, high] = std::minmax_element(cases[0].features.begin(), cases[0].features.end());
  EXPECT_GT(*high - *low, 1.0f);
  for (const WholeFileCase* silent : {&cases[3], &cases[6]}) {
    for (float value : silent->features) ASSERT_FLOAT_EQ(value, -1.5f);  // (log10(1e-10) + 4) / 4
  }
  const WholeFileCase& long_case = cases[2];
  ASSERT_GT(long_case.frames, kWindowFrames);
  const LogMel log_mel = WhisperLogMel(80);
  const std::vector<float> per_window = log_mel.Compute(long_case.samples.data(), long_case.samples.size());
  EXPECT_GT(MaxAbsDifference(per_window, long_case.windows[0].features), 0.5);
}

TEST(LogMel, WindowPadsWithZerosInLogMelSpace) {
  Spectrogram all;
  all.n_mels = 2;
  all.frames = 5;
  all.values = {1, 2, 3, 4, 5, 11, 12, 13, 14, 15};
  LogMelOptions options;
  options.n_mels = 2;
  options.window_samples = 4 * 160;  // 4 frames
  const LogMel log_mel(options);
  EXPECT_EQ(log_mel.Window(all, 0, 4), (std::vector<float>{1, 2, 3, 4, 11, 12, 13, 14}));
  EXPECT_EQ(log_mel.Window(all, 1, 9), (std::vector<float>{2, 3, 4, 5, 12, 13, 14, 15}));  // trimmed
  EXPECT_EQ(log_mel.Window(all, 3, 4), (std::vector<float>{4, 5, 0, 0, 14, 15, 0, 0}));    // past the end
  EXPECT_EQ(log_mel.Window(all, 1, 2), (std::vector<float>{2, 3, 0, 0, 12, 13, 0, 0}));    // size < window
  EXPECT_EQ(log_mel.Window(all, -1, 3), (std::vector<float>{0, 1, 2, 0, 0, 11, 12, 0}));   // before the start
  EXPECT_EQ(log_mel.Window(all, 7, 4), std::vector<float>(8, 0.0f));
}

TEST(LogMel, ComputeAllOfNothingAndOfOneSample) {
  const LogMel log_mel = WhisperLogMel(80);
  const Spectrogram none = log_mel.ComputeAll(nullptr, 0);
  EXPECT_EQ(none.frames, 1);
  for (float value : none.values) EXPECT_FLOAT_EQ(value, -1.5f);
  const float one = 0.5f;
  const Spectrogram single = log_mel.ComputeAll(&one, 1);
  EXPECT_EQ(single.frames, 1);
  EXPECT_GT(*std::max_element(single.values.begin(), single.values.end()), -1.5f);
}

}  // namespace
}  // namespace pteforge
