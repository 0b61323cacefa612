// Translator: text in, text out, with one .pte that carries everything (model, tokenizer,
// vocabulary, special tokens, generation settings; see models/translation_program.py).
//
//   auto translator = Translator::Open("opus.pte");
//   auto results = translator.value()->Translate({"Hello world."}, {});
//
// Sentences are translated in batches of similar length (padded to the longest), in
// greedy or beam search
// as the options or the model's generation settings say. An empty sentence, invalid
// UTF-8, or a sentence longer than the model's max_source_length (split it first) gets
// its own error; the others are still translated. Not thread-safe.
#ifndef PTEFORGE_CC_TRANSLATE_TRANSLATOR_H_
#define PTEFORGE_CC_TRANSLATE_TRANSLATOR_H_

#include <memory>
#include <string>
#include <vector>

#include "cc/runtime/session.h"
#include "cc/translate/search.h"
#include "cc/translate/tokenizer.h"

namespace pteforge {

class MarianModel;

// What the .pte says about itself.
struct TranslatorInfo {
  std::string family;      // "marian" (models/opus) or "bergamot" (models/bergamot)
  std::string model_name;
  bool weights_are_random = false;
  int64_t vocab_size = 0;
  int64_t max_rows = 0;           // sentences x beams per batch
  int64_t max_source_length = 0;  // tokens, </s> included
  int64_t max_target_length = 0;
  SearchOptions defaults;         // the model's generation settings
  // > 0: at most ceil(factor x source tokens) generated tokens per sentence (with
  // beam search: the batch's longest source decides), unless
  // TranslateOptions::max_length says otherwise.
  double max_length_factor = 0;
};

struct TranslateOptions {
  int beams = 0;           // 0: the model's num_beams
  int64_t max_length = 0;  // 0: the model's max_length
  int64_t min_length = 0;  // no </s> before this length (benchmarks)
  int batch_size = 0;      // sentences per batch; 0: as many as fit
};

// Where a Translator's time went, summed since it was opened or last reset.
struct TranslateStats {
  double encode_ms = 0;
  double decode_ms = 0;   // decode steps and cache reorders
  int64_t steps = 0;      // decoder steps (each for all rows of a batch)
};

struct Translation {
  std::string text;
  std::vector<int64_t> source_ids;  // the tokenized input, </s> included
  std::vector<int64_t> ids;         // the generated ids, start token excluded
};

class Translator {
 public:
  static StatusOr<std::unique_ptr<Translator>> Open(const std::string& path, SessionOptions options = {});

  const TranslatorInfo& info() const { return info_; }
  Session& session() { return *session_; }

  // Per text, its translation or why it has none. A failure of the model itself (or
  // bad options) fails the whole call.
  StatusOr<std::vector<StatusOr<Translation>>> Translate(const std::vector<std::string>& texts,
                                                         const TranslateOptions& options);
  // Generates from already tokenized sources (one batch per call to Search).
  StatusOr<std::vector<std::vector<int64_t>>> Generate(const std::vector<std::vector<int64_t>>& sources,
                                                       const TranslateOptions& options);
  const MarianTokenizer& tokenizer() const { return *tokenizer_; }
  TranslateStats stats() const;
  void ResetStats();

 private:
  Translator() = default;
  StatusOr<SearchOptions> Resolve(const TranslateOptions& options) const;

  std::unique_ptr<Session> session_;
  std::unique_ptr<MarianTokenizer> tokenizer_;
  std::unique_ptr<Seq2SeqModel> model_;
  MarianModel* marian_ = nullptr;  // model_, for its timings (BergamotModel is one too)
  TranslatorInfo info_;
};

}  // namespace pteforge

#endif  // PTEFORGE_CC_TRANSLATE_TRANSLATOR_H_
