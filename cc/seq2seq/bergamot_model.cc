#include "cc/seq2seq/bergamot_model.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>

namespace pteforge {

Status BergamotModel::Encode(const std::vector<std::vector<int64_t>>& sources, int beams) {
  own_candidates_.clear();
  for (const auto& source : sources) {
    auto own = shortlist_.Candidates({source}, multiple_);
    if (!own.ok()) return own.status();
    own_candidates_.push_back(std::move(own.value()));
  }
  beams_ = beams;
  PTEFORGE_RETURN_IF_ERROR(MarianModel::Encode(sources, beams));
  std::vector<int64_t> all(sources.size() * beams);
  std::iota(all.begin(), all.end(), 0);
  StepRows(all);
  return Status();
}

Status BergamotModel::KeepRows(const std::vector<int64_t>& rows) {
  const int64_t all = row_masks_.sizes.empty() ? 0 : row_masks_.sizes[0];
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i] < 0 || rows[i] >= all || (i > 0 && rows[i] <= rows[i - 1])) {
      return Failure(Error::InvalidArgument, "KeepRows: rows must ascend within the %lld encoded rows",
                     static_cast<long long>(all));
    }
  }
  StepRows(rows);
  return Status();
}

void BergamotModel::StepRows(const std::vector<int64_t>& rows) {
  stepped_ = rows;
  stepped_tensor_ = Int64Tensor({static_cast<int64_t>(rows.size())}, rows);
  const int64_t width = row_masks_.sizes.size() < 2 ? 0 : row_masks_.sizes[1];
  stepped_masks_ = HostTensor::Zeros(ScalarType::Long, {static_cast<int64_t>(rows.size()), width});
  const size_t row_bytes = static_cast<size_t>(width) * sizeof(int64_t);
  for (size_t i = 0; i < rows.size(); ++i) {
    std::memcpy(stepped_masks_.bytes.data() + i * row_bytes, row_masks_.bytes.data() + rows[i] * row_bytes, row_bytes);
  }
  // The step scores the union of the stepped sentences' own candidates (ascending), so
  // it narrows as sentences finish; a row's logits do not depend on the other columns.
  // Marked in vocabulary-wide tables: this runs each time a sentence finishes.
  std::vector<size_t> sentences;
  for (int64_t row : rows) {
    const size_t sentence = static_cast<size_t>(row / beams_);
    if (sentences.empty() || sentences.back() != sentence) sentences.push_back(sentence);
  }
  column_of_.assign(static_cast<size_t>(vocab_size_), -1);
  for (size_t sentence : sentences) {
    for (int64_t id : own_candidates_[sentence]) column_of_[id] = 0;
  }
  candidates_.clear();
  for (int64_t id = 0; id < vocab_size_; ++id) {
    if (column_of_[id] < 0) continue;
    column_of_[id] = static_cast<int32_t>(candidates_.size());
    candidates_.push_back(id);
  }
  candidate_tensor_ = Int64Tensor({static_cast<int64_t>(candidates_.size())}, candidates_);
  sentence_columns_.assign(own_candidates_.size(), {});
  for (size_t sentence : sentences) {
    for (int64_t id : own_candidates_[sentence]) sentence_columns_[sentence].push_back(column_of_[id]);
  }
}

StatusOr<StepScores> BergamotModel::Step(const std::vector<int64_t>& tokens, int64_t /*length*/) {
  // The model keeps its position in its state; `length` is implied.
  const int64_t n = static_cast<int64_t>(tokens.size());
  if (n != static_cast<int64_t>(stepped_.size())) {
    return Failure(Error::InvalidArgument, "Step: %lld tokens for %zu rows", static_cast<long long>(n),
                   stepped_.size());
  }
  const size_t k = candidates_.size();
  auto logits = RunStep({Int64Tensor({n, 1}, tokens), stepped_masks_, candidate_tensor_, stepped_tensor_},
                        n * static_cast<int64_t>(k));
  if (!logits.ok()) return logits.status();
  StepScores scores;
  scores.width = static_cast<int64_t>(k);
  scores.values = std::move(logits.value());
  scores.column_ids = candidates_;
  scores.log_probabilities = beams_ > 1;
  for (int64_t row = 0; row < n; ++row) {
    const std::vector<int32_t>& columns = sentence_columns_.at(stepped_[row] / beams_);
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
