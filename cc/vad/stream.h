// One audio stream through Silero VAD: samples arrive in any amounts; every complete
// chunk goes through the model as soon as it is there, and its probability to a
// SpeechSegmenter, so that segments come out while the stream runs. At the end, a last
// partial chunk is padded with zeros, as get_speech_timestamps pads it.
//
// The stream owns nothing shared: its VadModel (a Session holding this stream's
// state) must outlive it and serve no other stream. Thread-compatible.
#ifndef PTEFORGE_CC_VAD_STREAM_H_
#define PTEFORGE_CC_VAD_STREAM_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cc/runtime/status.h"
#include "cc/vad/segments.h"
#include "cc/vad/vad_model.h"

namespace pteforge {

class VadStream {
 public:
  // Starts a fresh stream (the model's state is reset). `sample_rate` must be one of
  // the model's (VadModel::CheckRate) and `options` valid.
  static StatusOr<VadStream> Start(VadModel* model, int sample_rate, const SegmentOptions& options);

  // Adds samples; runs every chunk they complete.
  Status Push(const float* samples, size_t count);
  // Ends the stream: runs the padded last chunk if samples are left over, decides the
  // remaining segments.
  Status Finish();

  // Probabilities of the chunks run since the last call, in order.
  std::vector<float> TakeProbabilities();
  // Segments decided since the last call (in samples), in order.
  std::vector<Segment> TakeSegments() { return segmenter_.TakeDecided(); }

  int sample_rate() const { return sample_rate_; }
  // Samples pushed so far.
  int64_t samples() const { return samples_; }
  int64_t chunks() const { return chunks_; }

 private:
  VadStream(VadModel* model, int sample_rate, const SegmentOptions& options);
  Status RunChunk(const float* chunk);

  VadModel* model_;
  int sample_rate_;
  SpeechSegmenter segmenter_;
  std::vector<float> pending_;  // samples of the next, incomplete chunk
  std::vector<float> probabilities_;
  int64_t samples_ = 0;
  int64_t chunks_ = 0;
};

}  // namespace pteforge

#endif  // PTEFORGE_CC_VAD_STREAM_H_
