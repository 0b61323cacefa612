// The regular expressions of tokenizer.json (the Split pre-tokenizer's and the Replace
// normalizer's and decoder's patterns), run by Oniguruma exactly as Hugging Face
// tokenizers runs them through its `onig` crate: UTF-8, Oniguruma's default syntax, no
// options, and find_iter's rule for empty matches. So every construct Oniguruma has
// works (\p{L}, (?i:...), lookahead and lookbehind, anchors, ...), with its semantics.
//
// A search that backtracks past Oniguruma's retry limit (10 million steps in one match
// attempt or in one search) is an error rather than a hang; tokenizers would panic.
//
// A compiled Regex is immutable: FindAll may be called from several threads at once.
// Copies share the compiled pattern.
#ifndef PTEFORGE_CC_TEXT_REGEX_H_
#define PTEFORGE_CC_TEXT_REGEX_H_

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cc/runtime/status.h"

struct re_pattern_buffer;  // Oniguruma's compiled pattern (regex_t)

namespace pteforge {

class Regex {
 public:
  // Compiles `pattern` (UTF-8). Errors give Oniguruma's message.
  static StatusOr<Regex> Compile(std::string_view pattern);

  // The successive non-overlapping matches in `text` (valid UTF-8) as [begin, end) byte
  // offsets, as the onig crate's find_iter gives them: an empty match where the previous
  // match ended is skipped.
  StatusOr<std::vector<std::pair<size_t, size_t>>> FindAll(std::string_view text) const;

  const std::string& pattern() const { return pattern_; }

 private:
  std::string pattern_;
  std::shared_ptr<re_pattern_buffer> compiled_;
};

}  // namespace pteforge

#endif  // PTEFORGE_CC_TEXT_REGEX_H_
