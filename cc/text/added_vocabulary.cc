#include "cc/text/added_vocabulary.h"

#include <algorithm>
#include <utility>

#include "cc/text/unicode.h"
#include "cc/text/utf8.h"

namespace pteforge {
namespace {

const char kWhere[] = "tokenizer.json: added_tokens";

bool IsWordCharacter(char32_t c) {
  const char major = unicode::MajorCategory(c);
  return major == 'L' || major == 'N' || major == 'M' || c == '_';
}

// The code point that ends at `end` (0 if nothing does), and where it begins.
char32_t CharacterBefore(std::string_view text, size_t end, size_t* begin) {
  *begin = end;
  if (end == 0) return 0;
  do {
    --*begin;
  } while (*begin > 0 && (static_cast<unsigned char>(text[*begin]) & 0xC0) == 0x80);
  return utf8::Decode(text.substr(*begin, end - *begin))[0];
}

// The code point that begins at `begin` (0 at the end of the text), and its length.
char32_t CharacterAt(std::string_view text, size_t begin, size_t* length) {
  *length = begin < text.size() ? utf8::SequenceLength(text, begin) : 0;
  return *length == 0 ? 0 : utf8::Decode(text.substr(begin, *length))[0];
}

}  // namespace

StatusOr<AddedVocabulary> AddedVocabulary::FromJson(const Json* added_tokens, const Normalizer* normalizer) {
  AddedVocabulary vocabulary;
  if (added_tokens == nullptr || added_tokens->is_null()) return vocabulary;
  if (!added_tokens->is_array()) return Failure(Error::InvalidArgument, "%s must be an array", kWhere);
  const std::string where = kWhere;
  for (const Json& entry : *added_tokens) {
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
    size_t before, length;
    if (token.single_word && (IsWordCharacter(CharacterBefore(text, start, &before)) ||
                              IsWordCharacter(CharacterAt(text, stop, &length)))) {
      continue;
    }
    if (token.lstrip) {
      // Not into what an earlier match took.
      while (start > piece_start && unicode::IsWhiteSpace(CharacterBefore(text, start, &before))) {
        start = std::max(before, piece_start);
      }
    }
    if (token.rstrip) {
      while (unicode::IsWhiteSpace(CharacterAt(text, stop, &length))) stop += length;
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
