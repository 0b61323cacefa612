#include "cc/vad/timestamps.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace pteforge {
namespace {

double Seconds(int64_t samples, const TimeFormat& format) {
  return static_cast<double>(samples) / format.sample_rate;
}

// The printed end in seconds before the audio length's clamp.
double RoundedEnd(const Segment& segment, const TimeFormat& format) {
  return PythonRound(Seconds(segment.end, format), format.time_resolution);
}

}  // namespace

double PythonRound(double value, int digits) {
  // printf rounds the exact binary value correctly (glibc and newlib alike), as
  // Python's round() does through its own correctly rounded conversion.
  char text[400];
  std::snprintf(text, sizeof(text), "%.*f", digits, value);
  return std::strtod(text, nullptr);
}

std::string FloatRepr(double value) {
  char text[64];
  for (int decimals = 1; decimals <= 17; ++decimals) {
    std::snprintf(text, sizeof(text), "%.*f", decimals, value);
    if (std::strtod(text, nullptr) == value) break;
  }
  return text;
}

bool EndIsKnown(const Segment& segment, const TimeFormat& format, int64_t stream_samples) {
  return format.units == Units::kSamples || Seconds(stream_samples, format) >= RoundedEnd(segment, format);
}

std::string FormatSegment(const Segment& segment, const TimeFormat& format, int64_t stream_samples) {
  if (format.units == Units::kSamples) return std::to_string(segment.start) + " " + std::to_string(segment.end);
  double start = std::max(PythonRound(Seconds(segment.start, format), format.time_resolution), 0.0);
  double end = std::min(RoundedEnd(segment, format), Seconds(stream_samples, format));
  return FloatRepr(start) + " " + FloatRepr(end);
}

}  // namespace pteforge
