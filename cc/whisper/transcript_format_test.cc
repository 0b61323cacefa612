#include "cc/whisper/transcript_format.h"

#include "gtest/gtest.h"

namespace pteforge {
namespace {

std::vector<TranscriptSegment> TwoSegments() {
  TranscriptSegment first;
  first.id = 1, first.start = 0.0, first.end = 2.5, first.text = " Hello there.";
  first.tokens = {50363, 2425, 612, 13, 50488};
  TranscriptSegment second;
  second.id = 2, second.start = 3661.24, second.end = 3662.0, second.text = " a --> b \"quoted\"";
  return {first, second};
}

TEST(TranscriptFormat, TimestampsAsSubRipAndWebVttWriteThem) {
  EXPECT_EQ(FormatTimestamp(0.0, true, ','), "00:00:00,000");
  EXPECT_EQ(FormatTimestamp(3661.24, true, ','), "01:01:01,240");
  EXPECT_EQ(FormatTimestamp(62.5, false, '.'), "01:02.500");
  EXPECT_EQ(FormatTimestamp(3661.24, false, '.'), "01:01:01.240");
}

TEST(TranscriptFormat, TextIsOneStrippedLinePerSegment) {
  EXPECT_EQ(FormatTranscript(TwoSegments(), TranscriptFormat::kText), "Hello there.\na --> b \"quoted\"\n");
}

TEST(TranscriptFormat, SubRipNumbersItsCues) {
  EXPECT_EQ(FormatTranscript(TwoSegments(), TranscriptFormat::kSrt),
            "1\n00:00:00,000 --> 00:00:02,500\nHello there.\n\n"
            "2\n01:01:01,240 --> 01:01:02,000\na -> b \"quoted\"\n\n");
}

TEST(TranscriptFormat, WebVttHasItsHeader) {
  EXPECT_EQ(FormatTranscript(TwoSegments(), TranscriptFormat::kVtt),
            "WEBVTT\n\n00:00.000 --> 00:02.500\nHello there.\n\n"
            "01:01:01.240 --> 01:01:02.000\na -> b \"quoted\"\n\n");
  EXPECT_EQ(FormatTranscript({}, TranscriptFormat::kVtt), "WEBVTT\n\n");
}

TEST(TranscriptFormat, JsonHasEverySegmentField) {
  const std::string json = FormatTranscript(TwoSegments(), TranscriptFormat::kJson);
  EXPECT_NE(json.find("\"tokens\": [50363, 2425, 612, 13, 50488]"), std::string::npos) << json;
  EXPECT_NE(json.find("\"text\": \" a --> b \\\"quoted\\\"\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"start\": 3661.24, \"end\": 3662.00"), std::string::npos) << json;
  EXPECT_EQ(FormatTranscript({}, TranscriptFormat::kJson), "{\"segments\": [], \"text\": \"\"}\n");
}

TEST(TranscriptFormat, JsonHasTheWordsWhenWordTimestampsRan) {
  std::vector<TranscriptSegment> segments = TwoSegments();
  segments[0].words = {{" Hello", 0.0, 0.5, 0.25}, {" there.", 0.5, 1.0, 0.75}};
  const std::string json = FormatTranscript(segments, TranscriptFormat::kJson, /*words=*/true);
  EXPECT_NE(json.find("\"words\": [{\"start\": 0.00, \"end\": 0.50, \"word\": \" Hello\", \"probability\": 0.25}, "
                      "{\"start\": 0.50, \"end\": 1.00, \"word\": \" there.\", \"probability\": 0.75}]"),
            std::string::npos) << json;
  EXPECT_NE(json.find("\"words\": []"), std::string::npos) << json;  // the second segment: none
  EXPECT_EQ(FormatTranscript(segments, TranscriptFormat::kJson).find("\"words\""), std::string::npos);
}

TEST(TranscriptFormat, UnknownFormatsAreRefusedByName) {
  auto format = ParseTranscriptFormat("docx");
  ASSERT_FALSE(format.ok());
  EXPECT_NE(format.status().message().find("text, srt, vtt or json"), std::string::npos);
  EXPECT_EQ(ParseTranscriptFormat("srt").value(), TranscriptFormat::kSrt);
}

}  // namespace
}  // namespace pteforge
