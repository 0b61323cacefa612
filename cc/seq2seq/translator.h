// Translator: text in, text out, with one .pte that carries everything (model, tokenizer,
// vocabulary, special tokens, generation settings; see models/translation_program.py,
// and python/pteforge/seq2seq/program_constants.py for any Hugging Face text-to-text
// model exported by pteforge.seq2seq, whose tokenizer is its tokenizer.json, or
// SentencePiece for OPUS-MT).
//
//   auto translator = Translator::Open("opus.pte");
//   auto results = translator.value()->Translate({"Hello world."}, {});
//
// Sentences are translated in batches of similar length (padded to the longest), in
// greedy or beam search as the options or the model's generation settings say. A
// sentence longer than the model's max_source_length is translated in pieces of
// max_source_length - 1 tokens, each with its own </s>, and the pieces' translations
// are joined with nothing between them: what bergamot-translator does with
// max-length-break (so a word cut at a piece boundary comes out joined to the next
// one, as there). Only sources of a SentencePiece tokenizer (Bergamot, OPUS-MT) are cut:
// a tokenizer.json's special tokens are its own, so such a sentence is an error. An empty sentence or invalid UTF-8 gets its own error; the others
// are still translated. The model side (ids in, ids out) is a TranslationModel
// (translation_model.h); this adds the text. Not thread-safe. Paragraphs and
// documents: split them first (sentence_splitter.h).
#ifndef PTEFORGE_CC_SEQ2SEQ_TRANSLATOR_H_
#define PTEFORGE_CC_SEQ2SEQ_TRANSLATOR_H_

#include <memory>
#include <string>
#include <vector>

#include "cc/runtime/session.h"
#include "cc/seq2seq/translation_model.h"
#include "cc/text/text_tokenizer.h"

namespace pteforge {

struct Translation {
  std::string text;
  std::vector<int64_t> source_ids;  // the tokenized input, </s> included
  std::vector<int64_t> ids;         // the generated ids, start token excluded
};

class Translator {
 public:
  static StatusOr<std::unique_ptr<Translator>> Open(const std::string& path, SessionOptions options = {});

  const TranslatorInfo& info() const { return model_->info(); }
  Session& session() { return model_->session(); }

  // Per text, its translation or why it has none. A failure of the model itself (or
  // bad options) fails the whole call.
  StatusOr<std::vector<StatusOr<Translation>>> Translate(const std::vector<std::string>& texts,
                                                         const TranslateOptions& options);
  // Generates from already tokenized sources (one batch).
  StatusOr<std::vector<std::vector<int64_t>>> Generate(const std::vector<std::vector<int64_t>>& sources,
                                                       const TranslateOptions& options) {
    return model_->Generate(sources, options);
  }
  const TextTokenizer& tokenizer() const { return *tokenizer_; }
  TranslateStats stats() const { return model_->stats(); }
  void ResetStats() { model_->ResetStats(); }

 private:
  Translator() = default;

  std::unique_ptr<TranslationModel> model_;
  std::unique_ptr<TextTokenizer> tokenizer_;
  // Whether a source longer than the model takes is cut in pieces (SentencePiece
  // tokenizers, whose sources end with one </s>) instead of refused.
  bool cuts_long_sources_ = false;
};

}  // namespace pteforge

#endif  // PTEFORGE_CC_SEQ2SEQ_TRANSLATOR_H_
