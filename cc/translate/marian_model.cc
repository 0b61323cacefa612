#include "cc/translate/marian_model.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "cc/translate/translator.h"

namespace pteforge {
namespace {

// Adds the lifetime of a scope to a nanosecond counter.
class ScopeTimer {
 public:
  explicit ScopeTimer(int64_t* total) : total_(total), start_(std::chrono::steady_clock::now()) {}
  ~ScopeTimer() {
    *total_ += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  int64_t* total_;
  std::chrono::steady_clock::time_point start_;
};

HostTensor Int64Tensor(std::vector<int64_t> sizes, const std::vector<int64_t>& values) {
  return HostTensor::FromValues(ScalarType::Long, std::move(sizes), values);
}

}  // namespace

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

StatusOr<std::vector<float>> MarianModel::Step(const std::vector<int64_t>& tokens, int64_t length) {
  ScopeTimer timer(&decode_ns_);
  ++steps_;
  const int64_t n = static_cast<int64_t>(tokens.size());
  auto result = session_->Execute(
      "decode_step", {Int64Tensor({n, 1}, tokens), row_masks_, Int64Tensor({n, length}, std::vector<int64_t>(n * length, 1))});
  if (!result.ok()) return result.status();
  const auto* log_probs = std::get_if<HostTensor>(&result->at(0));
  if (log_probs == nullptr || log_probs->dtype != ScalarType::Float || log_probs->numel() != n * vocab_size_) {
    return Failure(Error::InvalidProgram, "decode_step returned %s, expected float32[%lld, %lld]",
                   DescribeValue(result->at(0)).c_str(), static_cast<long long>(n),
                   static_cast<long long>(vocab_size_));
  }
  std::vector<float> out(log_probs->numel());
  std::memcpy(out.data(), log_probs->bytes.data(), log_probs->bytes.size());
  return out;
}

Status MarianModel::Reorder(const std::vector<int64_t>& rows) {
  ScopeTimer timer(&decode_ns_);
  auto result = session_->Execute("reorder_cache", {Int64Tensor({static_cast<int64_t>(rows.size())}, rows)});
  return result.ok() ? Status() : result.status();
}

}  // namespace pteforge
