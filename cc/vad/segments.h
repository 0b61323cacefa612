// Speech segments from per-chunk speech probabilities, decided exactly as Silero's own
// utility decides them (silero-vad 6.2.3, utils_vad.py: get_speech_timestamps and
// get_speech_timestamps_from_probs), but one probability at a time.
//
// The Python utility first collects every probability, then makes segments in one pass
// (a segment opens at threshold, closes after min_silence of probabilities below
// neg_threshold, is dropped below min_speech, is cut at max_speech), then pads them in a
// second pass that looks at each segment's neighbour. SpeechSegmenter runs the first
// pass as the probabilities arrive and releases a segment as soon as nothing that can
// still arrive would change it: its padded end depends on where the next kept segment
// starts, which is known once the stream has moved 2 x speech_pad past its end with no
// segment open before that point. The numbers are computed with Python's arithmetic
// (doubles where it has floats, truncation where it calls int(), floor division where
// it uses //), so every bound equals the utility's, sample for sample
// (tests/vad/segments_test.py compares them on thousands of probability sequences).
//
// Thread-compatible; no allocation beyond the segments themselves. Builds for bare metal.
#ifndef PTEFORGE_CC_VAD_SEGMENTS_H_
#define PTEFORGE_CC_VAD_SEGMENTS_H_

#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "cc/runtime/status.h"

namespace pteforge {

// get_speech_timestamps' parameters, with its defaults.
struct SegmentOptions {
  double threshold = 0.5;
  // Below this a chunk counts as silence while in speech; NaN: the utility's default,
  // max(threshold - 0.15, 0.01).
  double neg_threshold = std::numeric_limits<double>::quiet_NaN();
  double min_speech_duration_ms = 250;
  double max_speech_duration_s = std::numeric_limits<double>::infinity();
  double min_silence_duration_ms = 100;
  double speech_pad_ms = 30;
  double min_silence_at_max_speech = 98;  // ms
  bool use_max_poss_sil_at_max_speech = true;

  // An error naming the option that is out of range (negative durations, a threshold
  // outside [0, 1], NaN).
  Status Validate() const;
};

// A speech segment in samples: [start, end).
struct Segment {
  int64_t start = 0;
  int64_t end = 0;
  bool operator==(const Segment& other) const { return start == other.start && end == other.end; }
};

// Samples per chunk at a rate Silero supports (512 at 16 kHz, 256 at 8 kHz), or 0.
int64_t ChunkSamples(int sample_rate);

class SpeechSegmenter {
 public:
  // `sample_rate` must be 16000 or 8000 (ChunkSamples), `options` valid.
  SpeechSegmenter(int sample_rate, const SegmentOptions& options);

  // The next chunk's speech probability.
  void Push(double probability);
  // The stream ended after `audio_samples` samples (the utility's audio_length_samples;
  // at most Push count x chunk samples, more than (Push count - 1) x chunk samples).
  // Every remaining segment is decided.
  void Finish(int64_t audio_samples);
  // Segments decided since the last call, in order, padded as the utility pads them.
  std::vector<Segment> TakeDecided();

  // Samples covered by the probabilities pushed so far (Push count x chunk samples):
  // the stream has at least this many samples.
  int64_t pushed_samples() const { return chunks_ * chunk_; }
  bool finished() const { return finished_; }

 private:
  // Keeps a segment of the first pass; decides the previous one.
  void Append(Segment raw);
  // Decides the open segment once no segment still to come can change its end.
  void Release();

  int64_t chunk_;
  SegmentOptions options_;
  double neg_threshold_;
  double min_speech_samples_;
  double speech_pad_samples_;
  double max_speech_samples_;
  double min_silence_samples_;
  double min_silence_samples_at_max_speech_;

  // The utility's first pass (names as in utils_vad.py).
  int64_t chunks_ = 0;
  bool triggered_ = false;
  bool has_current_ = false;  // current_speech holds a start
  int64_t current_start_ = 0;
  int64_t temp_end_ = 0;
  int64_t prev_end_ = 0;
  int64_t next_start_ = 0;
  std::vector<std::pair<int64_t, int64_t>> possible_ends_;  // (temp_end, silence)

  // The second pass. The open segment is the last one kept: its start final, its end
  // not yet padded (open_raw_end_: as the first pass ended it).
  bool any_kept_ = false;
  bool has_open_ = false;
  Segment open_;
  int64_t open_raw_end_ = 0;
  std::vector<Segment> decided_;
  bool finished_ = false;
};

// The utility's result for a whole sequence of probabilities, in samples.
std::vector<Segment> SpeechTimestamps(const std::vector<double>& probabilities, int sample_rate,
                                      const SegmentOptions& options, int64_t audio_samples);

}  // namespace pteforge

#endif  // PTEFORGE_CC_VAD_SEGMENTS_H_
