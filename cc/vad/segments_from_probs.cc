// Test helper: speech segments from probabilities, for tests/vad/segments_test.py,
// which gives the same cases to silero's get_speech_timestamps and compares.
//
// stdin, one case per line:
//   rate audio_samples threshold neg_threshold min_speech_duration_ms max_speech_duration_s
//   min_silence_duration_ms speech_pad_ms min_silence_at_max_speech use_max_poss(0|1)
//   time_resolution p0 p1 ...
// (neg_threshold "nan" for the default). The probabilities are pushed one at a time,
// so segments are released as a stream would release them.
// stdout, one line per case: the segments in samples, then "|", then in seconds
// ("start end" pairs, as the vad tool prints them).
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "cc/vad/segments.h"
#include "cc/vad/timestamps.h"

int main() {
  using namespace pteforge;
  std::string line;
  char buffer[1 << 16];
  int number = 0;
  while (std::fgets(buffer, sizeof(buffer), stdin) != nullptr) {
    line += buffer;
    if (line.empty() || line.back() != '\n') continue;  // a long line: read on
    ++number;
    std::istringstream in(line);
    line.clear();
    std::vector<double> numbers;  // strtod reads "inf" and "nan", which >> does not
    std::string word;
    while (in >> word) {
      char* end = nullptr;
      numbers.push_back(std::strtod(word.c_str(), &end));
      if (*end != '\0') {
        std::fprintf(stderr, "segments_from_probs: line %d: '%s' is not a number\n", number, word.c_str());
        return 2;
      }
    }
    if (numbers.size() < 11) {
      std::fprintf(stderr, "segments_from_probs: line %d: malformed case\n", number);
      return 2;
    }
    const int rate = static_cast<int>(numbers[0]);
    const int64_t audio = static_cast<int64_t>(numbers[1]);
    SegmentOptions options;
    options.threshold = numbers[2];
    options.neg_threshold = numbers[3];
    options.min_speech_duration_ms = numbers[4];
    options.max_speech_duration_s = numbers[5];
    options.min_silence_duration_ms = numbers[6];
    options.speech_pad_ms = numbers[7];
    options.min_silence_at_max_speech = numbers[8];
    options.use_max_poss_sil_at_max_speech = numbers[9] != 0;
    const int resolution = static_cast<int>(numbers[10]);
    std::vector<double> probabilities(numbers.begin() + 11, numbers.end());
    std::vector<Segment> segments = SpeechTimestamps(probabilities, rate, options, audio);
    TimeFormat seconds{Units::kSeconds, resolution, rate};
    std::string samples_text, seconds_text;
    for (const Segment& s : segments) {
      samples_text += " " + std::to_string(s.start) + " " + std::to_string(s.end);
      seconds_text += " " + FormatSegment(s, seconds, audio);
    }
    std::printf("%s |%s\n", samples_text.c_str(), seconds_text.c_str());
  }
  return 0;
}
