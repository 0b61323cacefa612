// One segment of a transcript, as faster-whisper's Segment and Word (transcribe.py) have
// them: what the long form (long_form.h) returns and the transcript formats print.
#ifndef PTEFORGE_CC_WHISPER_TRANSCRIPT_SEGMENT_H_
#define PTEFORGE_CC_WHISPER_TRANSCRIPT_SEGMENT_H_

#include <cstdint>
#include <string>
#include <vector>

namespace pteforge {

// A word of a segment, when word timestamps ran (word_timing.h).
struct Word {
  std::string word;  // its text, with the space before it and merged punctuation
  double start = 0;  // s
  double end = 0;
  double probability = 0;  // the mean of its tokens' probabilities
};

struct TranscriptSegment {
  int id = 0;          // from 1
  int64_t seek = 0;    // the window's first frame
  double start = 0;    // s
  double end = 0;
  std::string text;
  std::vector<int64_t> tokens;  // timestamps included
  double temperature = 0;
  double avg_logprob = 0;
  double compression_ratio = 0;
  double no_speech_prob = 0;
  std::vector<Word> words;  // empty unless word timestamps ran
};

}  // namespace pteforge

#endif  // PTEFORGE_CC_WHISPER_TRANSCRIPT_SEGMENT_H_
