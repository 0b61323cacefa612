#include "cc/llm/text_generator.h"

#include "cc/runtime/constants.h"

namespace pteforge {
namespace {

// Decodes each token as CausalLm chooses it and passes the finished text on.
class StreamingSink : public TokenSink {
 public:
  StreamingSink(const Tokenizer* tokenizer, TextSink* out) : tokenizer_(tokenizer), stream_(tokenizer), out_(out) {}

  Status OnToken(int64_t token) override {
    if (!tokenizer_->IdToToken(token)) return Status();  // no text, as in Python's decode
    auto piece = stream_.Push(token);
    if (!piece.ok()) return piece.status();
    return piece->empty() || out_ == nullptr ? Status() : out_->OnText(*piece);
  }

  Status Finish() {
    auto rest = stream_.Finish();
    if (!rest.ok()) return rest.status();
    return rest->empty() || out_ == nullptr ? Status() : out_->OnText(*rest);
  }

 private:
  const Tokenizer* tokenizer_;
  StreamDecoder stream_;
  TextSink* out_;
};

}  // namespace

StatusOr<std::unique_ptr<TextGenerator>> TextGenerator::Open(const std::string& path, SessionOptions options) {
  auto session = Session::Open(path, options);
  if (!session.ok()) return session.status();
  auto model = CausalLm::Create(std::move(session.value()), path);
  if (!model.ok()) return model.status();
  if (!model.value()->info().has_tokenizer) {
    return Failure(Error::InvalidArgument,
                   "%s has no tokenizer: export it with tokenizer_dir (pteforge-export --hf_model takes the "
                   "model folder's tokenizer.json), or give the prompt as token ids",
                   path.c_str());
  }
  std::string json;
  PTEFORGE_RETURN_IF_ERROR(ReadConstant(model.value()->session(), "tokenizer_json", "a causal LM", &json));
  auto tokenizer = Tokenizer::FromJson(json);
  if (!tokenizer.ok()) {
    return Failure(tokenizer.status().code(), "%s: its tokenizer: %s", path.c_str(),
                   tokenizer.status().message().c_str());
  }
  return std::unique_ptr<TextGenerator>(new TextGenerator(std::move(model.value()), std::move(tokenizer.value())));
}

StatusOr<std::vector<int64_t>> TextGenerator::Encode(std::string_view prompt) const {
  return tokenizer_.Encode(prompt, /*add_special_tokens=*/true);
}

StatusOr<Generation> TextGenerator::Generate(const std::vector<int64_t>& prompt_ids, const GenerateOptions& options,
                                             TextSink* sink) {
  return Stream(/*from_empty=*/true, prompt_ids, options, sink);
}

StatusOr<Generation> TextGenerator::Continue(const std::vector<int64_t>& ids, const GenerateOptions& options,
                                             TextSink* sink) {
  return Stream(/*from_empty=*/false, ids, options, sink);
}

StatusOr<Generation> TextGenerator::Stream(bool from_empty, const std::vector<int64_t>& ids,
                                           const GenerateOptions& options, TextSink* sink) {
  StreamingSink streaming(&tokenizer_, sink);
  auto generation = from_empty ? model_->Generate(ids, options, &streaming) : model_->Continue(ids, options, &streaming);
  if (!generation.ok()) return generation.status();
  PTEFORGE_RETURN_IF_ERROR(streaming.Finish());
  return generation;
}

}  // namespace pteforge
