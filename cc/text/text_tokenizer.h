// TextTokenizer: what a Translator needs of a tokenizer. MarianTokenizer (SentencePiece
// models and Marian's vocabulary, tokenizer.h) and HfTextTokenizer (a tokenizer.json,
// hf_text_tokenizer.h) implement it.
#ifndef PTEFORGE_CC_TEXT_TEXT_TOKENIZER_H_
#define PTEFORGE_CC_TEXT_TEXT_TOKENIZER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cc/runtime/status.h"

namespace pteforge {

class TextTokenizer {
 public:
  virtual ~TextTokenizer() = default;
  // The source ids of `text`, with the special tokens the model's sources carry (</s>).
  // Empty text and invalid UTF-8 are refused.
  virtual StatusOr<std::vector<int64_t>> Encode(const std::string& text) const = 0;
  // The text of generated ids (special tokens dropped).
  virtual StatusOr<std::string> Decode(const std::vector<int64_t>& ids) const = 0;
  // The id of a token (a vocabulary piece or special token), if it has one.
  virtual std::optional<int64_t> TokenToId(const std::string& token) const = 0;
};

}  // namespace pteforge

#endif  // PTEFORGE_CC_TEXT_TEXT_TOKENIZER_H_
