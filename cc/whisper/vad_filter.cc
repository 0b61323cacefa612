#include "cc/whisper/vad_filter.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "cc/vad/stream.h"

namespace pteforge {

SegmentOptions FasterWhisperVadOptions() {
  SegmentOptions options;
  options.threshold = 0.5;
  options.neg_threshold = std::numeric_limits<double>::quiet_NaN();  // max(threshold - 0.15, 0.01)
  options.min_speech_duration_ms = 0;
  options.max_speech_duration_s = std::numeric_limits<double>::infinity();
  options.min_silence_duration_ms = 2000;
  options.speech_pad_ms = 400;
  return options;
}

StatusOr<SpeechAudio> KeepSpeech(VadModel& vad, const std::vector<float>& samples, const SegmentOptions& options) {
  constexpr int kRate = 16000;
  auto stream = VadStream::Start(&vad, kRate, options);
  if (!stream.ok()) return stream.status();
  PTEFORGE_RETURN_IF_ERROR(stream->Push(samples.data(), samples.size()));
  PTEFORGE_RETURN_IF_ERROR(stream->Finish());
  SpeechAudio speech;
  speech.chunks = stream->TakeSegments();
  for (const Segment& chunk : speech.chunks) {
    const int64_t end = std::min<int64_t>(chunk.end, static_cast<int64_t>(samples.size()));
    if (chunk.start < end) speech.samples.insert(speech.samples.end(), samples.begin() + chunk.start, samples.begin() + end);
  }
  return speech;
}

SpeechTimestampsMap::SpeechTimestampsMap(const std::vector<Segment>& chunks, int sample_rate)
    : sample_rate_(sample_rate) {
  int64_t previous_end = 0, silent_samples = 0;
  for (const Segment& chunk : chunks) {
    silent_samples += chunk.start - previous_end;
    previous_end = chunk.end;
    chunk_end_sample_.push_back(chunk.end - silent_samples);
    total_silence_before_.push_back(static_cast<double>(silent_samples) / sample_rate);
  }
}

size_t SpeechTimestampsMap::ChunkIndex(double seconds, bool is_end) const {
  const int64_t sample = static_cast<int64_t>(seconds * sample_rate_);  // int(): toward zero
  const auto exact = std::find(chunk_end_sample_.begin(), chunk_end_sample_.end(), sample);
  if (is_end && exact != chunk_end_sample_.end()) return exact - chunk_end_sample_.begin();
  // bisect.bisect: the first chunk ending after the sample.
  const size_t after =
      std::upper_bound(chunk_end_sample_.begin(), chunk_end_sample_.end(), sample) - chunk_end_sample_.begin();
  return std::min(after, chunk_end_sample_.size() - 1);
}

double SpeechTimestampsMap::OriginalTime(double seconds, size_t chunk_index) const {
  if (chunk_end_sample_.empty()) return seconds;
  return std::round((total_silence_before_[chunk_index] + seconds) * 100.0) / 100.0;
}

double SpeechTimestampsMap::OriginalTime(double seconds, bool is_end) const {
  if (chunk_end_sample_.empty()) return seconds;
  return OriginalTime(seconds, ChunkIndex(seconds, is_end));
}

}  // namespace pteforge
