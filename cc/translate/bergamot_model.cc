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
  sentence_columns_.clear();
  for (const auto& source : sources) {
    auto own = shortlist_.Candidates({source}, multiple_);
    if (!own.ok()) return own.status();
    std::vector<int32_t> columns;
    columns.reserve(own->size());
    for (int64_t id : own.value()) {  // its column: its place in the ascending union
      columns.push_back(static_cast<int32_t>(std::lower_bound(candidates_.begin(), candidates_.end(), id) -
                                             candidates_.begin()));
    }
    sentence_columns_.push_back(std::move(columns));
  }
  beams_ = beams;
  return MarianModel::Encode(sources, beams);
}

StatusOr<StepScores> BergamotModel::Step(const std::vector<int64_t>& tokens, int64_t /*length*/) {
  // The model keeps its position in its state; `length` is implied.
  const int64_t n = static_cast<int64_t>(tokens.size());
  const size_t k = candidates_.size();
  auto logits = RunStep({Int64Tensor({n, 1}, tokens), row_masks_, candidate_tensor_}, n * static_cast<int64_t>(k));
  if (!logits.ok()) return logits.status();
  StepScores scores;
  scores.width = static_cast<int64_t>(k);
  scores.values = std::move(logits.value());
  scores.column_ids = candidates_;
  for (int64_t row = 0; row < n; ++row) {
    const std::vector<int32_t>& columns = sentence_columns_.at(row / beams_);
    scores.row_columns.push_back(&columns);
    if (beams_ > 1) {  // log-softmax over the row's candidates
      float* in = scores.values.data() + row * k;
      float most = -std::numeric_limits<float>::infinity();
      for (int32_t c : columns) most = std::max(most, in[c]);
      double sum = 0;
      for (int32_t c : columns) sum += std::exp(static_cast<double>(in[c] - most));
      const float shift = most + static_cast<float>(std::log(sum));
      for (int32_t c : columns) in[c] -= shift;
    }
  }
  return scores;
}

}  // namespace pteforge
