#include "cc/text/hf_text_tokenizer.h"

#include "cc/runtime/constants.h"

namespace pteforge {

StatusOr<std::unique_ptr<HfTextTokenizer>> HfTextTokenizer::FromProgram(Session& session, const std::string& what) {
  std::string json;
  Status read = ReadConstant(session, "tokenizer_json", "a seq2seq program", &json);
  if (!read.ok()) {
    return Failure(Error::InvalidProgram, "%s was exported without its tokenizer (export it from a model folder "
                   "holding tokenizer.json, or with tokenizer_dir): %s", what.c_str(), read.message().c_str());
  }
  auto tokenizer = Tokenizer::FromJson(json);
  if (!tokenizer.ok()) return tokenizer.status();
  return std::make_unique<HfTextTokenizer>(std::move(tokenizer.value()));
}

StatusOr<std::vector<int64_t>> HfTextTokenizer::Encode(const std::string& text) const {
  if (text.empty()) return Failure(Error::InvalidArgument, "the text is empty");
  return tokenizer_.Encode(text, /*add_special_tokens=*/true);
}

StatusOr<std::string> HfTextTokenizer::Decode(const std::vector<int64_t>& ids) const {
  return tokenizer_.Decode(ids, /*skip_special_tokens=*/true);
}

}  // namespace pteforge
