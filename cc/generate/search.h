// Greedy and beam search over a sequence-to-sequence model, reproducing transformers'
// generate (greedy: _sample with do_sample=False; beams: _beam_search, v5) step for
// step, so the same model gives the same token ids.
#ifndef PTEFORGE_CC_GENERATE_SEARCH_H_
#define PTEFORGE_CC_GENERATE_SEARCH_H_

#include <cstdint>
#include <vector>

#include "cc/runtime/status.h"

namespace pteforge {

// One decoder step's next-token scores for every row: logits, which greedy search takes
// the argmax of (after the logits processors) and beam search log-softmaxes first, as
// generate() does; or log-probabilities already (log_probabilities). A model that
// scores only some token ids (a lexical shortlist) returns those columns alone: greedy
// search then takes each row's argmax over its own columns instead of over a
// vocabulary-wide copy that is -inf almost everywhere.
struct StepScores {
  int64_t width = 0;          // columns per row
  std::vector<float> values;  // rows x width, row-major
  // The values are log-softmaxed over each row's columns already (beam search then
  // leaves them as they are).
  bool log_probabilities = false;
  // The token id of each column, ascending; empty: column c is token c.
  std::vector<int64_t> column_ids;
  // Per row, the columns it may take, ascending (the others count as -inf); empty:
  // every row takes every column.
  std::vector<const std::vector<int32_t>*> row_columns;

  // The scores spread over the vocabulary, -inf where a row has no column (the values
  // themselves, moved, when every row has every token's column).
  std::vector<float> TakeDense(int64_t vocab) &&;
};

// What a search needs from a model. Rows are decoder rows: sentence s, beam k is row
// s * beams + k.
class Seq2SeqModel {
 public:
  virtual ~Seq2SeqModel() = default;
  // Encodes `sources` (padded to one length, `mask` 1 for real tokens) and prepares
  // `beams` decoder rows per sentence.
  virtual Status Encode(const std::vector<std::vector<int64_t>>& sources, int beams) = 0;
  // One decoder step: `tokens[row]` at position `length - 1`; returns the next-token
  // logits (or log-probabilities: StepScores::log_probabilities).
  virtual StatusOr<StepScores> Step(const std::vector<int64_t>& tokens, int64_t length) = 0;
  // Row i takes the decoder history of row `rows[i]`.
  virtual Status Reorder(const std::vector<int64_t>& rows) = 0;
  // Whether Prefill works.
  virtual bool CanPrefill() const { return false; }
  // Row 0's next tokens at once, at positions length - tokens.size() .. length - 1 (a
  // prompt), as Steps of row 0 alone would feed them; the logits after
  // tokens[position] (one row).
  virtual StatusOr<StepScores> Prefill(const std::vector<int64_t>& tokens, int64_t length, int64_t position);
  // Whether KeepRows works. Greedy search then steps only the unfinished sentences
  // instead of carrying finished ones to the end of the batch.
  virtual bool CanKeepRows() const { return false; }
  // Later Steps advance only `rows` (ascending, a subset of those stepped so far): Step's
  // tokens and its scores' rows are theirs, in that order. Encode restores all rows.
  virtual Status KeepRows(const std::vector<int64_t>& rows);
  virtual int64_t vocab_size() const = 0;
};

struct SearchOptions {
  int beams = 1;
  int64_t max_length = 128;  // generated sequence length, the start token included
  double length_penalty = 1.0;
  bool early_stopping = false;
  bool forced_eos = true;  // force </s> as the last token at max_length (forced_eos_token_id)
  // No </s> before this length (start token included), as generate's min_length. For
  // benchmarks that need equal lengths; not covered by the parity tests.
  int64_t min_length = 0;
  // Greedy search only: each sentence's own max_length (at most max_length), as
  // engines that limit output to a multiple of the source length do. Empty: all
  // sentences stop at max_length.
  std::vector<int64_t> sentence_max_lengths;
  int64_t start_token = 0;
  // Tokens the decoder is given after the start token before the search begins
  // (Whisper's language, task and no-timestamps tokens): generate()'s decoder prompt.
  // The result starts after them.
  std::vector<int64_t> prompt_tokens;
  int64_t eos_token = 0;
  int64_t pad_token = 0;
  // generate()'s other logits processors, for programs that leave them to the search
  // (pteforge.seq2seq; Marian and Bergamot programs apply theirs in the graph), in its
  // order: bad words, min_length, forced BOS (at the first generated position), forced
  // EOS, suppressed tokens, tokens suppressed at the first free position (after the
  // start token and the forced BOS token), renormalization.
  std::vector<int64_t> bad_tokens;
  int64_t forced_bos_token = -1;  // -1: none
  std::vector<int64_t> suppress_tokens;
  std::vector<int64_t> begin_suppress_tokens;
  bool renormalize = false;  // log-softmax again after the processors
};

// Whether `options` fit a model of `max_rows` decoder rows and `max_target_length`
// decoder positions (beams and max_length); the error says which does not.
Status CheckFits(const SearchOptions& options, int64_t max_rows, int64_t max_target_length);

// The best sequence per sentence, without the start token (and prompt tokens), ending
// with </s> unless it reached max_length.
StatusOr<std::vector<std::vector<int64_t>>> Search(Seq2SeqModel& model,
                                                   const std::vector<std::vector<int64_t>>& sources,
                                                   const SearchOptions& options);

}  // namespace pteforge

#endif  // PTEFORGE_CC_GENERATE_SEARCH_H_
