#include "cc/vad/stream.h"

#include <algorithm>

namespace pteforge {

VadStream::VadStream(VadModel* model, int sample_rate, const SegmentOptions& options)
    : model_(model), sample_rate_(sample_rate), segmenter_(sample_rate, options) {}

StatusOr<VadStream> VadStream::Start(VadModel* model, int sample_rate, const SegmentOptions& options) {
  PTEFORGE_RETURN_IF_ERROR(model->CheckRate(sample_rate));
  PTEFORGE_RETURN_IF_ERROR(options.Validate());
  PTEFORGE_RETURN_IF_ERROR(model->Reset());
  VadStream stream(model, sample_rate, options);
  stream.pending_.reserve(ChunkSamples(sample_rate));
  return stream;
}

Status VadStream::RunChunk(const float* chunk) {
  auto probability = model_->Process(sample_rate_, chunk);
  if (!probability.ok()) return probability.status();
  probabilities_.push_back(probability.value());
  segmenter_.Push(probability.value());
  ++chunks_;
  return Status();
}

Status VadStream::Push(const float* samples, size_t count) {
  const size_t chunk = static_cast<size_t>(ChunkSamples(sample_rate_));
  samples_ += static_cast<int64_t>(count);
  // Whole chunks straight from the caller's buffer; the rest waits in pending_.
  while (count > 0) {
    if (pending_.empty() && count >= chunk) {
      PTEFORGE_RETURN_IF_ERROR(RunChunk(samples));
      samples += chunk;
      count -= chunk;
      continue;
    }
    size_t take = std::min(count, chunk - pending_.size());
    pending_.insert(pending_.end(), samples, samples + take);
    samples += take;
    count -= take;
    if (pending_.size() == chunk) {
      PTEFORGE_RETURN_IF_ERROR(RunChunk(pending_.data()));
      pending_.clear();
    }
  }
  return Status();
}

Status VadStream::Finish() {
  if (segmenter_.finished()) return Status();
  if (!pending_.empty()) {
    pending_.resize(ChunkSamples(sample_rate_), 0.0f);
    PTEFORGE_RETURN_IF_ERROR(RunChunk(pending_.data()));
    pending_.clear();
  }
  segmenter_.Finish(samples_);
  return Status();
}

std::vector<float> VadStream::TakeProbabilities() {
  std::vector<float> taken;
  taken.swap(probabilities_);
  return taken;
}

}  // namespace pteforge
