#include "cc/whisper/vad_filter.h"

#include "gtest/gtest.h"

namespace pteforge {
namespace {

// Speech at 1-2 s and 3-4 s of the original audio: 1 s of silence removed before the
// first chunk, 2 s before the second; in the concatenation the chunks end at 1 s and 2 s.
SpeechTimestampsMap TwoChunks() { return SpeechTimestampsMap({{16000, 32000}, {48000, 64000}}, 16000); }

TEST(SpeechTimestampsMap, TimesInAChunkGetTheSilenceBeforeIt) {
  EXPECT_DOUBLE_EQ(TwoChunks().OriginalTime(0.5, false), 1.5);
  EXPECT_DOUBLE_EQ(TwoChunks().OriginalTime(1.5, false), 3.5);
  EXPECT_DOUBLE_EQ(TwoChunks().OriginalTime(2.5, false), 4.5);  // past the last chunk: its silence
}

TEST(SpeechTimestampsMap, AChunksEndIsItsOwnOnlyForEnds) {
  EXPECT_DOUBLE_EQ(TwoChunks().OriginalTime(1.0, true), 2.0);   // the first chunk's end
  EXPECT_DOUBLE_EQ(TwoChunks().OriginalTime(1.0, false), 3.0);  // the second chunk's start
}

TEST(SpeechTimestampsMap, RoundsToHundredths) {
  EXPECT_DOUBLE_EQ(TwoChunks().OriginalTime(0.123, false), 1.12);
  EXPECT_DOUBLE_EQ(SpeechTimestampsMap({}, 16000).OriginalTime(0.5, false), 0.5);  // no chunk: unchanged
}

TEST(FasterWhisperVadOptions, AreValidAndFasterWhispers) {
  const SegmentOptions options = FasterWhisperVadOptions();
  EXPECT_TRUE(options.Validate().ok());
  EXPECT_EQ(options.min_silence_duration_ms, 2000);
  EXPECT_EQ(options.speech_pad_ms, 400);
  EXPECT_EQ(options.min_speech_duration_ms, 0);
}

}  // namespace
}  // namespace pteforge
