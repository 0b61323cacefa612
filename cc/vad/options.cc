#include "cc/vad/options.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace pteforge {
namespace {

StatusOr<double> Number(const Flags& flags, const char* name) {
  const std::string& text = flags.Get(name);
  char* end = nullptr;
  errno = 0;
  double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno == ERANGE || std::isnan(value)) {
    return Failure(Error::InvalidArgument, "--%s=%s: expected a number", name, text.c_str());
  }
  return value;
}

}  // namespace

void DefineVadFlags(Flags& flags) {
  SegmentOptions defaults;
  auto text = [](double value) {
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), "%g", value);
    return std::string(buffer);
  };
  flags.Define("threshold", "speech when a chunk's probability is at least this", text(defaults.threshold));
  flags.Define("neg_threshold", "in speech, silence below this (default: max(threshold - 0.15, 0.01))");
  flags.Define("min_speech_duration_ms", "drop speech segments shorter than this", text(defaults.min_speech_duration_ms));
  flags.Define("max_speech_duration_s", "cut segments longer than this (inf: never)", text(defaults.max_speech_duration_s));
  flags.Define("min_silence_duration_ms", "silence that ends a segment", text(defaults.min_silence_duration_ms));
  flags.Define("speech_pad_ms", "padding added on each side of a segment", text(defaults.speech_pad_ms));
  flags.Define("min_silence_at_max_speech", "shortest silence (ms) to cut at when a segment reaches the maximum",
               text(defaults.min_silence_at_max_speech));
  flags.Define("use_max_poss_sil_at_max_speech", "at the maximum, cut at the longest silence (true) or the last (false)",
               "true");
  flags.Define("units", "seconds or samples", "seconds");
  flags.Define("time_resolution", "decimals of the times in seconds", "1");
  flags.DefineSwitch("probs", "also print every chunk's speech probability: prob <chunk> <p>");
}

StatusOr<VadOptions> ParseVadFlags(const Flags& flags) {
  VadOptions options;
  SegmentOptions& s = options.segments;
  struct Field {
    const char* name;
    double* value;
  };
  for (const Field& field : {Field{"threshold", &s.threshold}, Field{"min_speech_duration_ms", &s.min_speech_duration_ms},
                             Field{"max_speech_duration_s", &s.max_speech_duration_s},
                             Field{"min_silence_duration_ms", &s.min_silence_duration_ms},
                             Field{"speech_pad_ms", &s.speech_pad_ms},
                             Field{"min_silence_at_max_speech", &s.min_silence_at_max_speech}}) {
    auto value = Number(flags, field.name);
    if (!value.ok()) return value.status();
    *field.value = value.value();
  }
  if (flags.IsSet("neg_threshold")) {
    auto value = Number(flags, "neg_threshold");
    if (!value.ok()) return value.status();
    s.neg_threshold = value.value();
  }
  const std::string& use_max = flags.Get("use_max_poss_sil_at_max_speech");
  if (use_max != "true" && use_max != "false") {
    return Failure(Error::InvalidArgument, "--use_max_poss_sil_at_max_speech=%s: expected true or false", use_max.c_str());
  }
  s.use_max_poss_sil_at_max_speech = use_max == "true";
  PTEFORGE_RETURN_IF_ERROR(s.Validate());

  const std::string& units = flags.Get("units");
  if (units != "seconds" && units != "samples") {
    return Failure(Error::InvalidArgument, "--units=%s: expected seconds or samples", units.c_str());
  }
  options.print.units = units == "seconds" ? Units::kSeconds : Units::kSamples;
  auto resolution = flags.GetInt("time_resolution", 0, 9);
  if (!resolution.ok()) return resolution.status();
  options.print.time_resolution = static_cast<int>(resolution.value());
  options.print.probabilities = flags.IsSet("probs");
  return options;
}

}  // namespace pteforge
