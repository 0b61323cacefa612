// TranslationModel: the model side of a translation .pte (models/translation_program.py)
// without its tokenizer: the program's generation settings and limits, the family's
// Seq2SeqModel (MarianModel, or BergamotModel with its lexical shortlist) and the search.
// Token ids in, token ids out; everything here also runs on a microcontroller, where
// the text side (SentencePiece) is not built (cc/embedded/translate_image.cc).
// Translator (translator.h) adds the tokenizer. Not thread-safe.
#ifndef PTEFORGE_CC_SEQ2SEQ_TRANSLATION_MODEL_H_
#define PTEFORGE_CC_SEQ2SEQ_TRANSLATION_MODEL_H_

#include <memory>
#include <string>
#include <vector>

#include "cc/generate/search.h"
#include "cc/runtime/session.h"
#include "cc/seq2seq/translate_stats.h"

namespace pteforge {

class MarianModel;

// What the .pte says about itself.
struct TranslatorInfo {
  // "bergamot" (models/bergamot) or "seq2seq" (pteforge.seq2seq: T5, BART, Marian,
  // M2M100, ... from a Hugging Face folder, and OPUS-MT from models/opus)
  std::string family;
  std::string model_name;  // seq2seq: the model's name if it has one, else the transformers model type
  bool weights_are_random = false;
  int64_t vocab_size = 0;
  int64_t unk_token = 0;          // SentencePiece programs: the id of pieces outside the vocabulary
  int64_t max_rows = 0;           // sentences x beams per batch
  int64_t max_sources = 0;        // sentences per batch
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
  // >= 0: this token first (a target language: M2M100, NLLB, mBART-50), instead of the
  // model's forced BOS token.
  int64_t forced_bos_token = -1;
  int batch_size = 0;      // sentences per batch; 0: as many as fit
  std::string prefix;      // text put before every sentence (Translator; T5's task)
};

class TranslationModel {
 public:
  // Reads the program's constants; `what` names the program in messages.
  static StatusOr<std::unique_ptr<TranslationModel>> Create(std::unique_ptr<Session> session, const std::string& what);
  ~TranslationModel();

  const TranslatorInfo& info() const { return info_; }
  Session& session() { return *session_; }

  // Generates from tokenized sources, one batch (at most the rows the model has).
  StatusOr<std::vector<std::vector<int64_t>>> Generate(const std::vector<std::vector<int64_t>>& sources,
                                                       const TranslateOptions& options);
  // The options with the model's defaults filled in, checked against its limits.
  StatusOr<SearchOptions> Resolve(const TranslateOptions& options) const;
  // Reads a text constant of the program (e.g. its SentencePiece models).
  StatusOr<std::string> ReadText(const char* name);
  // Whether the program has the constant `name`.
  bool HasConstant(const std::string& name) const;
  TranslateStats stats() const;
  void ResetStats();

 private:
  TranslationModel() = default;

  std::unique_ptr<Session> session_;
  std::unique_ptr<MarianModel> model_;  // a BergamotModel for the "bergamot" family
  TranslatorInfo info_;
};

}  // namespace pteforge

#endif  // PTEFORGE_CC_SEQ2SEQ_TRANSLATION_MODEL_H_
