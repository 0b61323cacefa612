#include "cc/llm/added_vocabulary.h"

#include <algorithm>
#include <utility>

#include "cc/llm/unicode.h"
#include "cc/llm/utf8.h"

namespace pteforge {
namespace {

const char kWhere[] = "tokenizer.json: added_tokens";

bool IsWordCharacter(char32_t c) {
  const char major = unicode::MajorCategory(unicode::CategoryOf(c));
  return major == 'L' || major == 'N' || major == 'M' || c == '_';
}

// The code point that ends / starts `text`, or 0 for empty text.
char32_t LastCharacter(std::string_view text) {
  if (text.empty()) return 0;
  size_t begin = text.size() - 1;
  while (begin > 0 && (static_cast<unsigned char>(text[begin]) & 0xC0) == 0x80) --begin;
  return utf8::Decode(text.substr(begin))[0];
}
char32_t FirstCharacter(std::string_view text) {
  if (text.empty()) return 0;
  return utf8::Decode(text.substr(0, std::max<size_t>(1, utf8::SequenceLength(text, 0))))[0];
}

}  // namespace

StatusOr<AddedVocabulary> AddedVocabulary::FromJson(const JsonValue* added_tokens, const Normalizer* normalizer) {
  AddedVocabulary vocabulary;
  if (added_tokens == nullptr || added_tokens->is_null()) return vocabulary;
  if (!added_tokens->is_array()) return Failure(Error::InvalidArgument, "%s must be an array", kWhere);
  const std::string where = kWhere;
  for (const JsonValue& entry : added_tokens->array()) {
    if (!entry.is_object()) return Failure(Error::InvalidArgument, "%s: every entry must be an object", kWhere);
    AddedToken token;
    PTEFORGE_RETURN_IF_ERROR(RequiredInt(entry, "id", where, &token.id));
    PTEFORGE_RETURN_IF_ERROR(RequiredString(entry, "content", where, &token.content));
    PTEFORGE_RETURN_IF_ERROR(OptionalBool(entry, "special", where, false, &token.special));
    PTEFORGE_RETURN_IF_ERROR(OptionalBool(entry, "lstrip", where, false, &token.lstrip));
    PTEFORGE_RETURN_IF_ERROR(OptionalBool(entry, "rstrip", where, false, &token.rstrip));
    PTEFORGE_RETURN_IF_ERROR(OptionalBool(entry, "single_word", where, false, &token.single_word));
    PTEFORGE_RETURN_IF_ERROR(OptionalBool(entry, "normalized", where, !token.special, &token.normalized));
    if (token.content.empty()) {
      return Failure(Error::InvalidArgument, "%s: the token with id %lld has empty content", kWhere,
                     static_cast<long long>(token.id));
    }
    if (token.id < 0) {
      return Failure(Error::InvalidArgument, "%s: '%s' has a negative id", kWhere, token.content.c_str());
    }
    const size_t index = vocabulary.tokens_.size();
    token.text = token.content;
    if (token.normalized && normalizer != nullptr) PTEFORGE_RETURN_IF_ERROR(normalizer->Normalize(&token.text));
    vocabulary.by_id_[token.id] = index;
    vocabulary.by_content_[token.content] = index;
    vocabulary.by_content_.emplace(token.text, index);
    Matchable matchable{index, token.text};
    (token.normalized ? vocabulary.normalized_ : vocabulary.raw_).Add(std::move(matchable));
    vocabulary.tokens_.push_back(std::move(token));
  }
  return vocabulary;
}

const AddedToken* AddedVocabulary::FindById(int64_t id) const {
  auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : &tokens_[it->second];
}

const AddedToken* AddedVocabulary::FindByContent(std::string_view content) const {
  auto it = by_content_.find(std::string(content));
  return it == by_content_.end() ? nullptr : &tokens_[it->second];
}

void AddedVocabulary::MatchSet::Add(Matchable matchable) {
  if (matchable.content.empty()) return;  // normalized away: it can never match
  by_first_byte[static_cast<unsigned char>(matchable.content[0])].push_back(candidates.size());
  candidates.push_back(std::move(matchable));
}

void AddedVocabulary::SplitWith(const PreToken& piece, const MatchSet& set, std::vector<Piece>* out) const {
  const std::string& text = piece.text;
  size_t piece_start = 0;  // where the text not yet given out begins
  auto emit_text = [&](size_t begin, size_t end) {
    if (end > begin) out->push_back({std::nullopt, {text.substr(begin, end - begin), piece.at_start && begin == 0}});
  };
  size_t search = 0;
  while (search < text.size()) {
    // Leftmost, then longest match at or after `search`.
    size_t best_start = std::string::npos, best = 0, best_length = 0;
    for (size_t at = search; at < text.size() && best_start == std::string::npos; ++at) {
      for (size_t i : set.by_first_byte[static_cast<unsigned char>(text[at])]) {
        const std::string& content = set.candidates[i].content;
        if (content.size() > best_length && text.compare(at, content.size(), content) == 0) {
          best_start = at;
          best = i;
          best_length = content.size();
        }
      }
    }
    if (best_start == std::string::npos) break;
    size_t start = best_start, stop = best_start + best_length;
    search = stop;
    const AddedToken& token = tokens_[set.candidates[best].token];
    if (token.single_word && (IsWordCharacter(LastCharacter(std::string_view(text).substr(0, start))) ||
                              IsWordCharacter(FirstCharacter(std::string_view(text).substr(stop))))) {
      continue;
    }
    if (token.lstrip) {
      while (start > piece_start && unicode::IsWhiteSpace(LastCharacter(std::string_view(text).substr(0, start)))) {
        start -= utf8::Encode(std::u32string(1, LastCharacter(std::string_view(text).substr(0, start)))).size();
      }
    }
    if (token.rstrip) {
      while (stop < text.size() && unicode::IsWhiteSpace(FirstCharacter(std::string_view(text).substr(stop)))) {
        stop += utf8::SequenceLength(text, stop);
      }
      search = stop;
    }
    emit_text(piece_start, start);
    out->push_back({token.id, {}});
    piece_start = stop;
  }
  emit_text(piece_start, text.size());
}

StatusOr<std::vector<AddedVocabulary::Piece>> AddedVocabulary::Split(std::string_view text,
                                                                     const Normalizer* normalizer) const {
  std::vector<Piece> raw_pieces;
  SplitWith({std::string(text), true}, raw_, &raw_pieces);
  std::vector<Piece> pieces;
  for (Piece& piece : raw_pieces) {
    if (piece.id.has_value()) {
      pieces.push_back(std::move(piece));
      continue;
    }
    if (normalizer != nullptr) PTEFORGE_RETURN_IF_ERROR(normalizer->Normalize(&piece.text.text));
    if (piece.text.text.empty()) continue;
    SplitWith(piece.text, normalized_, &pieces);
  }
  return pieces;
}

}  // namespace pteforge
