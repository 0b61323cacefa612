#include "cc/whisper/transcript_format.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>

#include "cc/text/strip.h"

namespace pteforge {
namespace {

// A subtitle's text: stripped, and "-->" (the cue separator) written "->", as
// openai-whisper writes it.
std::string CueText(const std::string& text) {
  std::string cue = StripWhitespace(text);
  for (size_t at = cue.find("-->"); at != std::string::npos; at = cue.find("-->", at)) cue.replace(at, 3, "->");
  return cue;
}

std::string JsonString(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof(escaped), "\\u%04x", c);
          out += escaped;
        } else {
          out += static_cast<char>(c);  // UTF-8 passes through
        }
    }
  }
  return out + "\"";
}

std::string Number(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.17g", value);
  return text;
}

// A segment time with 2 decimals: times are multiples of a 0.01-s frame, so nothing is lost.
std::string Seconds(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.2f", value);
  return text;
}

std::string Json(const std::vector<TranscriptSegment>& segments, bool words) {
  std::string out = "{\"segments\": [";
  std::string text;
  for (size_t i = 0; i < segments.size(); ++i) {
    const TranscriptSegment& s = segments[i];
    text += s.text;
    out += i == 0 ? "\n  " : ",\n  ";
    out += "{\"id\": " + std::to_string(s.id) + ", \"seek\": " + std::to_string(s.seek) + ", \"start\": " +
           Seconds(s.start) + ", \"end\": " + Seconds(s.end) + ", \"text\": " + JsonString(s.text) + ", \"tokens\": [";
    for (size_t t = 0; t < s.tokens.size(); ++t) out += (t ? ", " : "") + std::to_string(s.tokens[t]);
    out += "], \"temperature\": " + Number(s.temperature) + ", \"avg_logprob\": " + Number(s.avg_logprob) +
           ", \"compression_ratio\": " + Number(s.compression_ratio) + ", \"no_speech_prob\": " +
           Number(s.no_speech_prob);
    if (words) {  // faster-whisper's Word fields
      out += ", \"words\": [";
      for (size_t w = 0; w < s.words.size(); ++w) {
        const Word& word = s.words[w];
        out += std::string(w ? ", " : "") + "{\"start\": " + Seconds(word.start) + ", \"end\": " + Seconds(word.end) +
               ", \"word\": " + JsonString(word.word) + ", \"probability\": " + Number(word.probability) + "}";
      }
      out += "]";
    }
    out += "}";
  }
  out += segments.empty() ? "]" : "\n]";
  return out + ", \"text\": " + JsonString(text) + "}\n";
}

}  // namespace

StatusOr<TranscriptFormat> ParseTranscriptFormat(const std::string& name) {
  if (name == "text") return TranscriptFormat::kText;
  if (name == "srt") return TranscriptFormat::kSrt;
  if (name == "vtt") return TranscriptFormat::kVtt;
  if (name == "json") return TranscriptFormat::kJson;
  return Failure(Error::InvalidArgument, "format '%s': expected text, srt, vtt or json", name.c_str());
}

std::string FormatTimestamp(double seconds, bool always_include_hours, char decimal_marker) {
  int64_t milliseconds = static_cast<int64_t>(std::llround(seconds * 1000.0));
  const int64_t hours = milliseconds / 3600000;
  milliseconds -= hours * 3600000;
  const int64_t minutes = milliseconds / 60000;
  milliseconds -= minutes * 60000;
  const int64_t whole_seconds = milliseconds / 1000;
  milliseconds -= whole_seconds * 1000;
  char text[80];  // room for any int64 hours (-Wformat-truncation)
  if (always_include_hours || hours > 0) {
    std::snprintf(text, sizeof(text), "%02" PRId64 ":%02" PRId64 ":%02" PRId64 "%c%03" PRId64, hours, minutes,
                  whole_seconds, decimal_marker, milliseconds);
  } else {
    std::snprintf(text, sizeof(text), "%02" PRId64 ":%02" PRId64 "%c%03" PRId64, minutes, whole_seconds,
                  decimal_marker, milliseconds);
  }
  return text;
}

std::string FormatTranscript(const std::vector<TranscriptSegment>& segments, TranscriptFormat format, bool words) {
  std::string out;
  switch (format) {
    case TranscriptFormat::kText:
      for (const TranscriptSegment& s : segments) out += StripWhitespace(s.text) + "\n";
      return out;
    case TranscriptFormat::kSrt:
      for (size_t i = 0; i < segments.size(); ++i) {
        out += std::to_string(i + 1) + "\n" + FormatTimestamp(segments[i].start, true, ',') + " --> " +
               FormatTimestamp(segments[i].end, true, ',') + "\n" + CueText(segments[i].text) + "\n\n";
      }
      return out;
    case TranscriptFormat::kVtt:
      out = "WEBVTT\n\n";
      for (const TranscriptSegment& s : segments) {
        out += FormatTimestamp(s.start, false, '.') + " --> " + FormatTimestamp(s.end, false, '.') + "\n" +
               CueText(s.text) + "\n\n";
      }
      return out;
    case TranscriptFormat::kJson:
      return Json(segments, words);
  }
  return out;
}

}  // namespace pteforge
