// The "added_tokens" of tokenizer.json: tokens found in the text before normalization
// and pre-tokenization, as Hugging Face tokenizers' AddedVocabulary does it. Tokens with
// "normalized": false are looked for in the raw text; the text between them is
// normalized, then searched for the tokens with "normalized": true (themselves
// normalized). At each position the leftmost, then longest, token wins. "lstrip" and
// "rstrip" take the White_Space next to a match into it; "single_word" keeps a match
// only if no word character (letter, mark, number or '_') touches it.
//
// Immutable after construction; thread-safe.
#ifndef PTEFORGE_CC_TEXT_ADDED_VOCABULARY_H_
#define PTEFORGE_CC_TEXT_ADDED_VOCABULARY_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cc/text/json.h"
#include "cc/text/normalizer.h"
#include "cc/text/pre_tokenizer.h"
#include "cc/runtime/status.h"

namespace pteforge {

struct AddedToken {
  int64_t id = 0;
  std::string content;
  bool special = false;
  bool lstrip = false;
  bool rstrip = false;
  bool single_word = false;
  bool normalized = false;
  // The token as id_to_token and decoding give it: the content, normalized if
  // "normalized" (as tokenizers keeps it).
  std::string text;
};

class AddedVocabulary {
 public:
  // `normalizer` (may be null) normalizes the contents of the "normalized" tokens; it
  // must outlive nothing here (used during construction only).
  static StatusOr<AddedVocabulary> FromJson(const Json* added_tokens, const Normalizer* normalizer);

  // A piece of input: either an added token (id set) or normalized text to pre-tokenize.
  struct Piece {
    std::optional<int64_t> id;
    PreToken text;
  };
  // Splits `text` around the added tokens and normalizes the rest (empty pieces dropped).
  StatusOr<std::vector<Piece>> Split(std::string_view text, const Normalizer* normalizer) const;

  const AddedToken* FindById(int64_t id) const;
  const AddedToken* FindByContent(std::string_view content) const;
  const std::vector<AddedToken>& tokens() const { return tokens_; }

 private:
  // Indices into tokens_ of the tokens matched in raw (or normalized) text, with the
  // content to look for.
  struct Matchable {
    size_t token;
    std::string content;
  };
  struct MatchSet {
    std::vector<Matchable> candidates;
    // Indices into candidates by the first byte of their content: most bytes start none.
    std::array<std::vector<size_t>, 256> by_first_byte;
    void Add(Matchable matchable);
  };
  // Splits one piece of text with `set`.
  void SplitWith(const PreToken& text, const MatchSet& set, std::vector<Piece>* out) const;

  std::vector<AddedToken> tokens_;
  std::unordered_map<int64_t, size_t> by_id_;
  std::unordered_map<std::string, size_t> by_content_;
  MatchSet raw_;
  MatchSet normalized_;
};

}  // namespace pteforge

#endif  // PTEFORGE_CC_TEXT_ADDED_VOCABULARY_H_
