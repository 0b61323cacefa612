// CompressionRatio against faster-whisper's get_compression_ratio, computed at build time
// on Python's zlib (gen_compression_ratio_golden.py): equal as doubles, so zlib's stream
// has the same length on every text, the two sides of the 2.4 threshold included.
#include "cc/whisper/compression_ratio.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace pteforge {
namespace {

struct Golden {
  const char* name;
  std::string text;
  int python_compressed_size;  // len(zlib.compress(text)), for the failure message
  double ratio;
};

const std::vector<Golden>& Goldens() {
  static const std::vector<Golden> goldens = {
#include "cc/whisper/compression_ratio_golden.inc"
  };
  return goldens;
}

constexpr double kFasterWhisperThreshold = 2.4;  // compression_ratio_threshold

TEST(CompressionRatio, EqualsFasterWhispersOnEveryText) {
  ASSERT_GE(Goldens().size(), 10u);
  for (const Golden& golden : Goldens()) {
    const double ratio = CompressionRatio(golden.text);
    EXPECT_EQ(ratio, golden.ratio)
        << golden.name << ": " << golden.text.size() << " bytes, Python's zlib stream "
        << golden.python_compressed_size << " bytes, ours "
        << (ratio > 0 ? golden.text.size() / ratio : 0.0);
  }
}

TEST(CompressionRatio, EmptyTextIsZero) { EXPECT_EQ(CompressionRatio(""), 0.0); }

// The goldens straddle the threshold, so the equality above covers the fallback's decision.
TEST(CompressionRatio, GoldensCoverBothSidesOfTheThreshold) {
  int above = 0, below = 0;
  for (const Golden& golden : Goldens()) (golden.ratio > kFasterWhisperThreshold ? above : below)++;
  EXPECT_GT(above, 0);
  EXPECT_GT(below, 0);
}

}  // namespace
}  // namespace pteforge
