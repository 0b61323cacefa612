#include "cc/text/tokenizer.h"

#include <utility>

#include "cc/text/added_vocabulary.h"
#include "cc/text/bpe.h"
#include "cc/text/decoder.h"
#include "cc/text/json.h"
#include "cc/text/normalizer.h"
#include "cc/text/post_processor.h"
#include "cc/text/pre_tokenizer.h"
#include "cc/text/utf8.h"

namespace pteforge {

struct Tokenizer::Impl {
  std::unique_ptr<Normalizer> normalizer;      // may be null
  std::unique_ptr<PreTokenizer> pre_tokenizer;  // may be null: each piece is one word
  BpeModel model;
  AddedVocabulary added;
  SpecialTokenFrame special_frame;
  std::unique_ptr<Decoder> decoder;  // may be null: tokens joined with spaces
};

namespace {

const char kWhere[] = "tokenizer.json";

// Settings that would change a single encode and are not implemented.
Status CheckNoTruncationOrPadding(const Json& root) {
  if (const Json* truncation = FindMember(root, "truncation"); truncation != nullptr && !truncation->is_null()) {
    return Failure(Error::NotSupported, "%s: truncation is not supported; set it to null", kWhere);
  }
  const Json* padding = FindMember(root, "padding");
  if (padding == nullptr || padding->is_null()) return Status();
  const Json* strategy = FindMember(*padding, "strategy");
  // BatchLongest pads a batch to its longest member: nothing for one text.
  if (strategy != nullptr && strategy->is_string() && strategy->get_ref<const std::string&>() == "BatchLongest") {
    return Status();
  }
  return Failure(Error::NotSupported, "%s: padding to a fixed length is not supported; set it to null", kWhere);
}

StatusOr<BpeModel> MakeModel(const Json& root) {
  auto model = RequiredMember(root, "model", kWhere, Json::value_t::object);
  if (!model.ok()) return model.status();
  std::string type;
  PTEFORGE_RETURN_IF_ERROR(OptionalString(**model, "type", std::string(kWhere) + ": model",
                                          FindMember(**model, "merges") != nullptr ? "BPE" : "", &type));
  if (type != "BPE") {
    return Failure(Error::NotSupported, "%s: model type '%s' is not supported; supported: BPE", kWhere,
                   type.c_str());
  }
  return BpeModel::FromJson(**model);
}

// A pipeline member that may be null in the file.
const Json* Optional(const Json& root, const char* key) {
  const Json* value = FindMember(root, key);
  return value == nullptr || value->is_null() ? nullptr : value;
}

// The component `make` builds from root[key], or none (null) if the file has none.
template <typename T>
Status MakeIfPresent(const Json& root, const char* key, StatusOr<std::unique_ptr<T>> (*make)(const Json&),
                     std::unique_ptr<T>* out) {
  const Json* config = Optional(root, key);
  if (config == nullptr) return Status();
  StatusOr<std::unique_ptr<T>> made = make(*config);
  if (!made.ok()) return made.status();
  *out = std::move(made).value();
  return Status();
}

}  // namespace

StatusOr<Tokenizer> Tokenizer::FromJson(std::string_view json) {
  StatusOr<Json> parsed = ParseJson(json, kWhere);
  if (!parsed.ok()) return parsed.status();
  const Json& root = *parsed;
  if (!root.is_object()) return Failure(Error::InvalidArgument, "%s: the document must be an object", kWhere);
  PTEFORGE_RETURN_IF_ERROR(CheckNoTruncationOrPadding(root));

  auto impl = std::make_shared<Impl>();
  PTEFORGE_RETURN_IF_ERROR(MakeIfPresent(root, "normalizer", &MakeNormalizer, &impl->normalizer));
  PTEFORGE_RETURN_IF_ERROR(MakeIfPresent(root, "pre_tokenizer", &MakePreTokenizer, &impl->pre_tokenizer));
  StatusOr<BpeModel> model = MakeModel(root);
  if (!model.ok()) return model.status();
  impl->model = std::move(model).value();
  auto added = AddedVocabulary::FromJson(FindMember(root, "added_tokens"), impl->normalizer.get());
  if (!added.ok()) return added.status();
  impl->added = std::move(added).value();
  auto frame = MakePostProcessor(Optional(root, "post_processor"));
  if (!frame.ok()) return frame.status();
  impl->special_frame = std::move(frame).value();
  PTEFORGE_RETURN_IF_ERROR(MakeIfPresent(root, "decoder", &MakeDecoder, &impl->decoder));
  return Tokenizer(std::move(impl));
}

StatusOr<std::vector<int64_t>> Tokenizer::Encode(std::string_view utf8_text, bool add_special_tokens) const {
  const size_t invalid = utf8::FirstInvalidByte(utf8_text);
  if (invalid != utf8_text.size()) {
    return Failure(Error::InvalidArgument, "Encode: the text is not valid UTF-8 at byte %zu (0x%02X)", invalid,
                   static_cast<unsigned>(static_cast<unsigned char>(utf8_text[invalid])));
  }
  auto pieces = impl_->added.Split(utf8_text, impl_->normalizer.get());
  if (!pieces.ok()) return pieces.status();
  std::vector<int64_t> ids;
  if (add_special_tokens) ids = impl_->special_frame.before;
  std::vector<PreToken> words;
  for (AddedVocabulary::Piece& piece : *pieces) {
    if (piece.id.has_value()) {
      ids.push_back(*piece.id);
      continue;
    }
    words.assign(1, std::move(piece.text));
    if (impl_->pre_tokenizer != nullptr) PTEFORGE_RETURN_IF_ERROR(impl_->pre_tokenizer->PreTokenize(&words));
    for (const PreToken& word : words) impl_->model.Tokenize(word.text, &ids);
  }
  if (add_special_tokens) ids.insert(ids.end(), impl_->special_frame.after.begin(), impl_->special_frame.after.end());
  return ids;
}

StatusOr<std::string> Tokenizer::Decode(const std::vector<int64_t>& ids, bool skip_special_tokens) const {
  std::vector<std::string> tokens;
  tokens.reserve(ids.size());
  for (int64_t id : ids) {
    std::optional<std::string> token = IdToToken(id);
    if (!token.has_value()) {
      return Failure(Error::InvalidArgument, "Decode: id %lld is not in the vocabulary", static_cast<long long>(id));
    }
    if (skip_special_tokens) {
      const AddedToken* added = impl_->added.FindByContent(*token);
      if (added != nullptr && added->special) continue;
    }
    tokens.push_back(std::move(*token));
  }
  if (impl_->decoder == nullptr) {
    std::string joined;
    for (size_t i = 0; i < tokens.size(); ++i) joined += (i == 0 ? "" : " ") + tokens[i];
    return joined;
  }
  PTEFORGE_RETURN_IF_ERROR(impl_->decoder->DecodeChain(&tokens));
  std::string text;
  for (const std::string& token : tokens) text += token;
  return text;
}

std::optional<int64_t> Tokenizer::TokenToId(std::string_view token) const {
  if (const AddedToken* added = impl_->added.FindByContent(token)) return added->id;
  return impl_->model.TokenToId(token);
}

std::optional<std::string> Tokenizer::IdToToken(int64_t id) const {
  if (const AddedToken* added = impl_->added.FindById(id)) return added->text;
  if (const std::string* token = impl_->model.IdToToken(id)) return *token;
  return std::nullopt;
}

size_t Tokenizer::vocab_size() const {
  size_t size = impl_->model.vocab_size();
  for (const AddedToken& token : impl_->added.tokens()) {
    if (!impl_->model.TokenToId(token.content).has_value()) ++size;
  }
  return size;
}

StatusOr<std::string> StreamDecoder::Push(int64_t id) {
  std::optional<std::string> token = tokenizer_->IdToToken(id);
  if (!token.has_value()) {
    return Failure(Error::InvalidArgument, "StreamDecoder: id %lld is not in the vocabulary",
                   static_cast<long long>(id));
  }
  all_ids_.push_back(id);
  window_.push_back(id);
  // A byte-fallback run is decoded as a whole (an invalid run is one U+FFFD per byte),
  // so nothing in it is final until a token of another kind follows.
  if (ByteFallbackValue(*token) >= 0) return std::string();
  StatusOr<std::string> text = tokenizer_->Decode(window_, skip_special_tokens_);
  if (!text.ok()) return text.status();
  // Ends in the middle of a character (or in U+FFFD, which may still be one): wait.
  if (utf8::EndsWithReplacement(*text) || text->size() <= prefix_text_.size() ||
      text->compare(0, prefix_text_.size(), prefix_text_) != 0) {
    return std::string();
  }
  std::string fresh = text->substr(prefix_text_.size());
  // The tokens just returned become the context of the next window.
  window_.erase(window_.begin(), window_.begin() + static_cast<std::ptrdiff_t>(prefix_length_));
  prefix_length_ = window_.size();
  StatusOr<std::string> prefix = tokenizer_->Decode(window_, skip_special_tokens_);
  if (!prefix.ok()) return prefix.status();
  prefix_text_ = std::move(prefix).value();
  emitted_ += fresh;
  return fresh;
}

StatusOr<std::string> StreamDecoder::Finish() {
  StatusOr<std::string> full = tokenizer_->Decode(all_ids_, skip_special_tokens_);
  if (!full.ok()) return full.status();
  std::string rest;
  if (full->compare(0, emitted_.size(), emitted_) == 0) {
    rest = full->substr(emitted_.size());
  } else {
    return Failure(Error::Internal,
                   "StreamDecoder: the text returned so far is not a prefix of the whole decode (a decoder "
                   "whose output for a token depends on later tokens)");
  }
  *this = StreamDecoder(tokenizer_, skip_special_tokens_);
  return rest;
}

}  // namespace pteforge
