#include "cc/translate/bergamot_model.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace pteforge {

Status BergamotModel::Encode(const std::vector<std::vector<int64_t>>& sources, int beams) {
  auto candidates = shortlist_.Candidates(sources, multiple_);
  if (!candidates.ok()) return candidates.status();
  candidates_ = std::move(candidates.value());
  candidate_tensor_ = Int64Tensor({static_cast<int64_t>(candidates_.size())}, candidates_);
  beams_ = beams;
  return MarianModel::Encode(sources, beams);
}

StatusOr<std::vector<float>> BergamotModel::Step(const std::vector<int64_t>& tokens, int64_t /*length*/) {
  // The model keeps its position in its state; `length` is implied.
  const int64_t n = static_cast<int64_t>(tokens.size());
  const size_t k = candidates_.size();
  auto logits = RunStep({Int64Tensor({n, 1}, tokens), row_masks_, candidate_tensor_}, n * static_cast<int64_t>(k));
  if (!logits.ok()) return logits.status();
  std::vector<float> scores(n * vocab_size_, -std::numeric_limits<float>::infinity());
  for (int64_t row = 0; row < n; ++row) {
    const float* in = logits->data() + row * k;
    float shift = 0.0f;
    if (beams_ > 1) {  // log-softmax over the candidates
      float most = *std::max_element(in, in + k);
      double sum = 0;
      for (size_t i = 0; i < k; ++i) sum += std::exp(static_cast<double>(in[i] - most));
      shift = most + static_cast<float>(std::log(sum));
    }
    float* out = scores.data() + row * vocab_size_;
    for (size_t i = 0; i < k; ++i) out[candidates_[i]] = in[i] - shift;
  }
  return scores;
}

}  // namespace pteforge
