// The Seq2SeqModel of a Bergamot .pte (models/bergamot/stateful_bergamot.py): encode
// and reorder_cache as MarianModel, and decode_step over shortlist candidates only.
// A batch's decode_step scores the union of its unfinished sentences' candidates; each
// row then keeps only its own sentence's candidates (the engine's set, as if translated alone):
// StepScores with the union as columns and each row's own columns, raw logits for
// greedy search, which keeps the engine's exact argmax, and log-probabilities over the
// row's candidates when beams need scores (computed here in double, as when the parity
// with the engine was established: StepScores::log_probabilities). Greedy search steps
// only the unfinished rows (KeepRows): decode_step takes the rows it advances.
#ifndef PTEFORGE_CC_SEQ2SEQ_BERGAMOT_MODEL_H_
#define PTEFORGE_CC_SEQ2SEQ_BERGAMOT_MODEL_H_

#include "cc/seq2seq/marian_model.h"
#include "cc/seq2seq/shortlist.h"

namespace pteforge {

class BergamotModel : public MarianModel {
 public:
  BergamotModel(Session* session, int64_t vocab_size, int64_t pad_token, Shortlist shortlist, int64_t multiple)
      : MarianModel(session, vocab_size, pad_token), shortlist_(std::move(shortlist)), multiple_(multiple) {}

  Status Encode(const std::vector<std::vector<int64_t>>& sources, int beams) override;
  StatusOr<StepScores> Step(const std::vector<int64_t>& tokens, int64_t length) override;
  // decode_step takes the rows it advances.
  bool CanKeepRows() const override { return true; }
  Status KeepRows(const std::vector<int64_t>& rows) override;

 private:
  // Later steps advance `rows` (ascending) and score their sentences' candidates.
  void StepRows(const std::vector<int64_t>& rows);

  Shortlist shortlist_;
  int64_t multiple_;
  int beams_ = 1;
  std::vector<std::vector<int64_t>> own_candidates_;    // per sentence of the batch, ascending
  std::vector<int64_t> candidates_;                     // the stepped sentences' union, ascending
  std::vector<std::vector<int32_t>> sentence_columns_;  // per sentence: its candidates' columns in the union
  std::vector<int32_t> column_of_;                      // per token id: its column, or -1
  HostTensor candidate_tensor_;
  std::vector<int64_t> stepped_;  // the decoder rows a step advances, ascending
  HostTensor stepped_tensor_;     // stepped_ as decode_step's `rows`
  HostTensor stepped_masks_;      // their rows of row_masks_
};

}  // namespace pteforge

#endif  // PTEFORGE_CC_SEQ2SEQ_BERGAMOT_MODEL_H_
