// A small backtracking regular-expression engine for the pre-tokenizer patterns of
// tokenizer.json files (GPT-2's, Llama-3's, Qwen2's and the like), with the matching
// semantics of Oniguruma as Hugging Face tokenizers uses it: leftmost match, the first
// alternative that leads to a match wins, greedy quantifiers give back one character at
// a time.
//
// Supported: literals and escapes (\t \n \r \f \v \e \xHH \x{H..} \uHHHH, escaped
// punctuation), '.', classes [...] with ranges and negation, \s \S (White_Space),
// \d \D (Nd), \w \W (L, M, Nd, Pc), \p{..} \P{..} \p{^..} for general categories
// ("L", "Lu", "Letter", ...) and White_Space, alternation, groups ( ) (?: ) (?<name> ),
// (?i: ) (?-i: ) and (?i) for the rest of a group (case-insensitive by simple case
// folding), lookaheads (?= ) (?! ), quantifiers ? * + {n} {n,} {n,m} {,m} (greedy, or
// lazy with a trailing '?'). Anything else (anchors, back-references, lookbehind,
// possessive quantifiers, class intersections) is a compile error naming it.
//
// A compiled Regex is immutable: Find may be called from several threads at once.
#ifndef PTEFORGE_CC_TEXT_REGEX_H_
#define PTEFORGE_CC_TEXT_REGEX_H_

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cc/runtime/status.h"

namespace pteforge {

class Regex {
 public:
  struct Node;

  // Compiles `pattern` (UTF-8). Errors name the construct and its byte offset.
  static StatusOr<Regex> Compile(std::string_view pattern);

  // The successive non-overlapping matches in `text` as [begin, end) indices of code
  // points, as Oniguruma's find_iter: an empty match right after the previous match is
  // skipped. Fails only if a pattern with a repeated group nests too deep on this text.
  StatusOr<std::vector<std::pair<size_t, size_t>>> FindAll(std::u32string_view text) const;

  const std::string& pattern() const { return pattern_; }

 private:
  std::string pattern_;
  std::shared_ptr<const std::vector<std::vector<Node>>> alternatives_;
};

}  // namespace pteforge

#endif  // PTEFORGE_CC_TEXT_REGEX_H_
