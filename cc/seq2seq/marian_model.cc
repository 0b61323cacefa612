#include "cc/seq2seq/marian_model.h"

#include <algorithm>
#include <cstring>

#include <executorch/runtime/platform/clock.h>

namespace pteforge {

HostTensor Int64Tensor(std::vector<int64_t> sizes, const std::vector<int64_t>& values) {
  return HostTensor::FromValues(ScalarType::Long, std::move(sizes), values);
}

MarianModel::ScopeTimer::~ScopeTimer() {
  *total_ += static_cast<int64_t>(executorch::runtime::ticks_to_ns(executorch::runtime::pal_current_ticks() - start_));
}

TranslateStats MarianModel::stats() const {
  TranslateStats stats;
  stats.encode_ms = encode_ns_ / 1e6;
  stats.decode_ms = decode_ns_ / 1e6;
  stats.steps = steps_;
  return stats;
}

Status MarianModel::Encode(const std::vector<std::vector<int64_t>>& sources, int beams) {
  ScopeTimer timer(&encode_ns_);
  const int64_t batch = static_cast<int64_t>(sources.size());
  size_t length = 0;
  for (const auto& ids : sources) length = std::max(length, ids.size());
  const int64_t width = static_cast<int64_t>(length);
  std::vector<int64_t> ids(batch * width, pad_token_), mask(batch * width, 0), rows;
  for (int64_t b = 0; b < batch; ++b) {
    std::copy(sources[b].begin(), sources[b].end(), ids.begin() + b * width);
    std::fill(mask.begin() + b * width, mask.begin() + b * width + sources[b].size(), 1);
    for (int k = 0; k < beams; ++k) rows.push_back(b);
  }
  std::vector<int64_t> row_mask;
  for (int64_t row : rows) row_mask.insert(row_mask.end(), mask.begin() + row * width, mask.begin() + (row + 1) * width);
  row_masks_ = Int64Tensor({static_cast<int64_t>(rows.size()), width}, row_mask);
  auto result = session_->Execute("encode", {Int64Tensor({batch, width}, ids), Int64Tensor({batch, width}, mask),
                                             Int64Tensor({static_cast<int64_t>(rows.size())}, rows)});
  return result.ok() ? Status() : result.status();
}

StatusOr<StepScores> MarianModel::Step(const std::vector<int64_t>& tokens, int64_t length) {
  const int64_t n = static_cast<int64_t>(tokens.size());
  auto logits = RunStep({Int64Tensor({n, 1}, tokens), row_masks_,
                         Int64Tensor({n, length}, std::vector<int64_t>(n * length, 1))},
                        n * vocab_size_);
  if (!logits.ok()) return logits.status();
  StepScores scores;
  scores.width = vocab_size_;
  scores.values = std::move(logits.value());
  return scores;
}

StatusOr<std::vector<float>> MarianModel::RunStep(const std::vector<Value>& inputs, int64_t count) {
  ScopeTimer timer(&decode_ns_);
  ++steps_;
  auto result = session_->Execute("decode_step", inputs);
  if (!result.ok()) return result.status();
  const auto* scores = result->empty() ? nullptr : std::get_if<HostTensor>(&result->at(0));
  if (scores == nullptr || scores->dtype != ScalarType::Float || scores->numel() != count) {
    return Failure(Error::InvalidProgram, "decode_step returned %s, expected %lld float32 values",
                   result->empty() ? "nothing" : DescribeValue(result->at(0)).c_str(), static_cast<long long>(count));
  }
  std::vector<float> out(scores->numel());
  std::memcpy(out.data(), scores->bytes.data(), scores->bytes.size());
  return out;
}

Status MarianModel::Reorder(const std::vector<int64_t>& rows) {
  ScopeTimer timer(&decode_ns_);
  auto result = session_->Execute("reorder_cache", {Int64Tensor({static_cast<int64_t>(rows.size())}, rows)});
  return result.ok() ? Status() : result.status();
}

}  // namespace pteforge
