#include "cc/vad/segments.h"

#include <algorithm>
#include <cmath>

namespace pteforge {
namespace {

// Python's int() of a float: truncation toward zero.
int64_t Truncate(double value) { return static_cast<int64_t>(value); }

// Python's // on ints: rounds toward negative infinity.
int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t quotient = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? quotient - 1 : quotient;
}

}  // namespace

Status SegmentOptions::Validate() const {
  auto bad = [](const char* name, double value, const char* want) {
    return Failure(Error::InvalidArgument, "--%s=%g: expected %s", name, value, want);
  };
  if (!(threshold >= 0 && threshold <= 1)) return bad("threshold", threshold, "a probability in [0, 1]");
  if (!std::isnan(neg_threshold) && !(neg_threshold >= 0 && neg_threshold <= 1)) {
    return bad("neg_threshold", neg_threshold, "a probability in [0, 1] (or leave it out for threshold - 0.15)");
  }
  struct Duration {
    const char* name;
    double value;
  };
  for (const Duration& d : {Duration{"min_speech_duration_ms", min_speech_duration_ms},
                            Duration{"min_silence_duration_ms", min_silence_duration_ms},
                            Duration{"speech_pad_ms", speech_pad_ms},
                            Duration{"min_silence_at_max_speech", min_silence_at_max_speech}}) {
    if (!(d.value >= 0 && std::isfinite(d.value))) return bad(d.name, d.value, "a finite duration >= 0");
  }
  if (!(max_speech_duration_s > 0)) return bad("max_speech_duration_s", max_speech_duration_s, "a duration > 0 (inf: no limit)");
  return Status();
}

int64_t ChunkSamples(int sample_rate) {
  switch (sample_rate) {
    case 16000: return 512;
    case 8000: return 256;
    default: return 0;
  }
}

SpeechSegmenter::SpeechSegmenter(int sample_rate, const SegmentOptions& options)
    : chunk_(ChunkSamples(sample_rate)), options_(options) {
  // The utility's quantities, computed as it computes them (sr * ms first, then / 1000).
  const double rate = sample_rate;
  neg_threshold_ = std::isnan(options.neg_threshold) ? std::max(options.threshold - 0.15, 0.01) : options.neg_threshold;
  min_speech_samples_ = rate * options.min_speech_duration_ms / 1000;
  speech_pad_samples_ = rate * options.speech_pad_ms / 1000;
  max_speech_samples_ = rate * options.max_speech_duration_s - static_cast<double>(chunk_) - 2 * speech_pad_samples_;
  min_silence_samples_ = rate * options.min_silence_duration_ms / 1000;
  min_silence_samples_at_max_speech_ = rate * options.min_silence_at_max_speech / 1000;
}

void SpeechSegmenter::Push(double probability) {
  const int64_t cur_sample = chunk_ * chunks_++;
  const bool speech = probability >= options_.threshold;

  // Speech returns after a temp_end: a candidate silence for a cut at max speech.
  if (speech && temp_end_ != 0) {
    int64_t silence = cur_sample - temp_end_;
    if (static_cast<double>(silence) > min_silence_samples_at_max_speech_) possible_ends_.emplace_back(temp_end_, silence);
    temp_end_ = 0;
    if (next_start_ < prev_end_) next_start_ = cur_sample;
  }

  bool next = false;  // the utility's `continue`
  if (speech && !triggered_) {
    triggered_ = true;
    has_current_ = true;
    current_start_ = cur_sample;
    next = true;
  }

  // Max speech length reached: decide where to cut.
  if (!next && triggered_ && static_cast<double>(cur_sample - current_start_) > max_speech_samples_) {
    if (options_.use_max_poss_sil_at_max_speech && !possible_ends_.empty()) {
      // The longest silence (the first of equals, as Python's max).
      std::pair<int64_t, int64_t> longest = possible_ends_.front();
      for (const auto& candidate : possible_ends_) {
        if (candidate.second > longest.second) longest = candidate;
      }
      prev_end_ = longest.first;
      Append(Segment{current_start_, prev_end_});
      has_current_ = false;
      next_start_ = prev_end_ + longest.second;
      if (next_start_ < prev_end_ + cur_sample) {  // still not speech again
        has_current_ = true;
        current_start_ = next_start_;
      } else {
        triggered_ = false;
      }
      prev_end_ = next_start_ = temp_end_ = 0;
      possible_ends_.clear();
    } else if (prev_end_ != 0) {  // the legacy cut at the last valid silence
      Append(Segment{current_start_, prev_end_});
      has_current_ = false;
      if (next_start_ < prev_end_) {
        triggered_ = false;
      } else {
        has_current_ = true;
        current_start_ = next_start_;
      }
      prev_end_ = next_start_ = temp_end_ = 0;
      possible_ends_.clear();
    } else {  // no silence to cut at: cut here
      Append(Segment{current_start_, cur_sample});
      has_current_ = false;
      prev_end_ = next_start_ = temp_end_ = 0;
      triggered_ = false;
      possible_ends_.clear();
      next = true;
    }
  }

  // Silence while in speech.
  if (!next && probability < neg_threshold_ && triggered_) {
    if (temp_end_ == 0) temp_end_ = cur_sample;
    int64_t silence = cur_sample - temp_end_;
    if (!options_.use_max_poss_sil_at_max_speech && static_cast<double>(silence) > min_silence_samples_at_max_speech_) {
      prev_end_ = temp_end_;
    }
    if (!(static_cast<double>(silence) < min_silence_samples_)) {
      if (static_cast<double>(temp_end_ - current_start_) > min_speech_samples_) Append(Segment{current_start_, temp_end_});
      has_current_ = false;
      prev_end_ = next_start_ = temp_end_ = 0;
      triggered_ = false;
      possible_ends_.clear();
    }
  }
  Release();
}

void SpeechSegmenter::Finish(int64_t audio_samples) {
  if (finished_) return;
  if (has_current_ && static_cast<double>(audio_samples - current_start_) > min_speech_samples_) {
    Append(Segment{current_start_, audio_samples});
    has_current_ = false;
  }
  if (has_open_) {
    // The last segment: int(min(audio_length_samples, end + speech_pad_samples)).
    double padded = static_cast<double>(open_raw_end_) + speech_pad_samples_;
    open_.end = static_cast<double>(audio_samples) <= padded ? audio_samples : Truncate(padded);
    decided_.push_back(open_);
    has_open_ = false;
  }
  finished_ = true;
}

std::vector<Segment> SpeechSegmenter::TakeDecided() {
  std::vector<Segment> taken;
  taken.swap(decided_);
  return taken;
}

// The utility's padding pass, one kept segment at a time: segment i's end and segment
// i+1's start depend on the silence between them (before padding).
void SpeechSegmenter::Append(Segment raw) {
  int64_t start;
  if (!any_kept_) {
    start = Truncate(std::max(0.0, static_cast<double>(raw.start) - speech_pad_samples_));
  } else {
    int64_t silence = raw.start - open_raw_end_;
    if (static_cast<double>(silence) < 2 * speech_pad_samples_) {
      // Split the silence between the two (the previous one cannot have been released:
      // Release waits for 2 x speech_pad of silence).
      open_.end = open_raw_end_ + FloorDiv(silence, 2);
      start = std::max<int64_t>(0, raw.start - FloorDiv(silence, 2));
    } else {
      // int(min(audio_length_samples, end + pad)): the next segment starts inside the
      // audio, at least pad after end + pad, so the minimum is end + pad.
      open_.end = Truncate(static_cast<double>(open_raw_end_) + speech_pad_samples_);
      start = Truncate(std::max(0.0, static_cast<double>(raw.start) - speech_pad_samples_));
    }
    if (has_open_) decided_.push_back(open_);
  }
  open_ = Segment{start, raw.end};
  open_raw_end_ = raw.end;
  has_open_ = true;
  any_kept_ = true;
}

// The open segment's end is decided once every segment still to come must start at
// least 2 x speech_pad after it: kept segments start in order, none before the one in
// progress, or before the next chunk when none is.
void SpeechSegmenter::Release() {
  if (!has_open_) return;
  int64_t earliest_next = has_current_ ? current_start_ : pushed_samples();
  if (static_cast<double>(earliest_next - open_raw_end_) >= 2 * speech_pad_samples_) {
    open_.end = Truncate(static_cast<double>(open_raw_end_) + speech_pad_samples_);
    decided_.push_back(open_);
    has_open_ = false;
  }
}

std::vector<Segment> SpeechTimestamps(const std::vector<double>& probabilities, int sample_rate,
                                      const SegmentOptions& options, int64_t audio_samples) {
  SpeechSegmenter segmenter(sample_rate, options);
  for (double probability : probabilities) segmenter.Push(probability);
  segmenter.Finish(audio_samples);
  return segmenter.TakeDecided();
}

}  // namespace pteforge
