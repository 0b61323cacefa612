// HfTextTokenizer: a Hugging Face tokenizer.json (cc/text/tokenizer.h) as a Translator's
// tokenizer, for pteforge.seq2seq programs, which carry their model's tokenizer.json:
// sources encoded with the post-processor's special tokens (T5's </s>, BART's <s> ...
// </s>, M2M100's language token), as transformers' tokenizers encode them.
#ifndef PTEFORGE_CC_TEXT_HF_TEXT_TOKENIZER_H_
#define PTEFORGE_CC_TEXT_HF_TEXT_TOKENIZER_H_

#include <memory>
#include <string>

#include "cc/runtime/session.h"
#include "cc/text/text_tokenizer.h"
#include "cc/text/tokenizer.h"

namespace pteforge {

class HfTextTokenizer : public TextTokenizer {
 public:
  explicit HfTextTokenizer(Tokenizer tokenizer) : tokenizer_(std::move(tokenizer)) {}
  // The tokenizer.json a pteforge.seq2seq program carries (its "tokenizer_json"
  // constant); `what` names the program in messages.
  static StatusOr<std::unique_ptr<HfTextTokenizer>> FromProgram(Session& session, const std::string& what);

  StatusOr<std::vector<int64_t>> Encode(const std::string& text) const override;
  // The ids of `text` alone, without the post-processor's special tokens: what Whisper's
  // prompts take (faster-whisper's tokenizer.encode).
  StatusOr<std::vector<int64_t>> EncodeWithoutSpecialTokens(const std::string& text) const {
    return tokenizer_.Encode(text, /*add_special_tokens=*/false);
  }
  StatusOr<std::string> Decode(const std::vector<int64_t>& ids) const override;
  std::optional<int64_t> TokenToId(const std::string& token) const override { return tokenizer_.TokenToId(token); }

 private:
  Tokenizer tokenizer_;
};

}  // namespace pteforge

#endif  // PTEFORGE_CC_TEXT_HF_TEXT_TOKENIZER_H_
