// Segments as get_speech_timestamps returns them: in samples, or in seconds rounded to
// `time_resolution` decimals (return_seconds=True), printed as Python prints the
// numbers (the shortest text that reads back as the same double).
//
// In seconds, a segment's end is min(round(end / sr, resolution), audio length in
// seconds): while a stream is running that minimum is known only once the stream is
// longer than the rounded end (EndIsKnown).
#ifndef PTEFORGE_CC_VAD_TIMESTAMPS_H_
#define PTEFORGE_CC_VAD_TIMESTAMPS_H_

#include <cstdint>
#include <string>

#include "cc/vad/segments.h"

namespace pteforge {

enum class Units { kSeconds, kSamples };

struct TimeFormat {
  Units units = Units::kSeconds;
  int time_resolution = 1;  // decimals, in seconds
  int sample_rate = 16000;
};

// Python's round(value, digits) for a float (correctly rounded, ties to even on the
// exact binary value).
double PythonRound(double value, int digits);
// Python's repr() of a float in [0, 1e16): the shortest decimal that reads back as
// `value`, with at least one digit after the point ("0.3", "12.0").
std::string FloatRepr(double value);

// Whether the printed end of `segment` is known once the stream holds
// `stream_samples` samples (always, in samples).
bool EndIsKnown(const Segment& segment, const TimeFormat& format, int64_t stream_samples);

// "start end" as the utility gives them; `stream_samples` is the audio's length (at
// least the stream's length so far, with EndIsKnown true).
std::string FormatSegment(const Segment& segment, const TimeFormat& format, int64_t stream_samples);

}  // namespace pteforge

#endif  // PTEFORGE_CC_VAD_TIMESTAMPS_H_
