// Hand-checked cases; tests/vad/segments_test.py compares with silero's own utility on
// thousands of sequences.
#include "cc/vad/segments.h"

#include <vector>

#include "cc/vad/timestamps.h"
#include "gtest/gtest.h"

namespace pteforge {
namespace {

std::vector<double> Probabilities(std::initializer_list<std::pair<int, double>> parts) {
  std::vector<double> probabilities;
  for (const auto& [count, value] : parts) probabilities.insert(probabilities.end(), count, value);
  return probabilities;
}

TEST(SegmentsTest, OneUtterancePaddedBySpeechPad) {
  // Speech from chunk 10 to 29; the silence from 30 ends it after 100 ms (1600 samples).
  std::vector<double> probabilities = Probabilities({{10, 0.0}, {20, 0.9}, {10, 0.0}});
  std::vector<Segment> segments = SpeechTimestamps(probabilities, 16000, SegmentOptions(), 40 * 512);
  EXPECT_EQ(segments, (std::vector<Segment>{{10 * 512 - 480, 30 * 512 + 480}}));
}

TEST(SegmentsTest, ShortSpeechIsDroppedAndThresholdIsInclusive) {
  EXPECT_TRUE(SpeechTimestamps(Probabilities({{5, 0.9}, {10, 0.0}}), 16000, SegmentOptions(), 15 * 512).empty());
  std::vector<Segment> at_threshold = SpeechTimestamps(Probabilities({{20, 0.5}, {10, 0.0}}), 8000, SegmentOptions(), 30 * 256);
  EXPECT_EQ(at_threshold, (std::vector<Segment>{{0, 20 * 256 + 240}}));
}

TEST(SegmentsTest, ASegmentIsReleasedOnceTheSilenceAfterItIsLongEnough) {
  SpeechSegmenter segmenter(16000, SegmentOptions());
  for (double p : Probabilities({{10, 0.0}, {20, 0.9}, {4, 0.0}})) segmenter.Push(p);
  EXPECT_TRUE(segmenter.TakeDecided().empty());  // still within min_silence: it may go on
  segmenter.Push(0.0);  // chunk 34: 2048 samples of silence, more than min_silence
  EXPECT_EQ(segmenter.TakeDecided(), (std::vector<Segment>{{10 * 512 - 480, 30 * 512 + 480}}));
  segmenter.Finish(35 * 512);
  EXPECT_TRUE(segmenter.TakeDecided().empty());
}

TEST(SegmentsTest, AClosedSegmentWaitsWhileTheNextCouldStillShareItsPadding) {
  SegmentOptions options;
  options.speech_pad_ms = 100;  // 1600 samples each side: the next must start 3200 after the end
  SpeechSegmenter segmenter(16000, options);
  for (double p : Probabilities({{20, 0.9}, {5, 0.0}})) segmenter.Push(p);
  // Closed at 20 * 512 (after 5 silent chunks), but a segment starting before
  // 20 * 512 + 3200 would split the silence instead of padding it.
  EXPECT_TRUE(segmenter.TakeDecided().empty());
  for (double p : Probabilities({{2, 0.0}})) segmenter.Push(p);  // pushed: 27 * 512 >= 20 * 512 + 3200
  EXPECT_EQ(segmenter.TakeDecided(), (std::vector<Segment>{{0, 20 * 512 + 1600}}));
}

TEST(TimestampsTest, RoundsAndPrintsAsPython) {
  EXPECT_EQ(PythonRound(0.25, 1), 0.2);
  EXPECT_EQ(PythonRound(0.45, 1), 0.5);
  EXPECT_EQ(PythonRound(2.675, 2), 2.67);
  EXPECT_EQ(PythonRound(1.05, 1), 1.1);
  EXPECT_EQ(FloatRepr(12.0), "12.0");
  EXPECT_EQ(FloatRepr(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(FloatRepr(PythonRound(0.15, 1)), "0.1");
  // The end is the audio's length when that is shorter than the rounded end.
  TimeFormat seconds{Units::kSeconds, 1, 16000};
  EXPECT_EQ(FormatSegment({800, 16000 + 960}, seconds, 16000 + 960), "0.1 1.06");
  EXPECT_FALSE(EndIsKnown({800, 16000 + 960}, seconds, 16000 + 960));
  EXPECT_TRUE(EndIsKnown({800, 16000 + 960}, seconds, 16000 + 1600));
  EXPECT_EQ(FormatSegment({800, 16000 + 960}, TimeFormat{Units::kSamples, 1, 16000}, 0), "800 16960");
}

}  // namespace
}  // namespace pteforge
