#include "cc/translate/hf_text_tokenizer.h"

namespace pteforge {

StatusOr<std::vector<int64_t>> HfTextTokenizer::Encode(const std::string& text) const {
  if (text.empty()) return Failure(Error::InvalidArgument, "the text is empty");
  return tokenizer_.Encode(text, /*add_special_tokens=*/true);
}

StatusOr<std::string> HfTextTokenizer::Decode(const std::vector<int64_t>& ids) const {
  return tokenizer_.Decode(ids, /*skip_special_tokens=*/true);
}

}  // namespace pteforge
