// The "pattern" of a Split pre-tokenizer or a Replace normalizer/decoder in
// tokenizer.json: {"String": "literal"} or {"Regex": "..."} (cc/text/regex.h).
//
// Immutable after construction; thread-safe.
#ifndef PTEFORGE_CC_TEXT_PATTERN_H_
#define PTEFORGE_CC_TEXT_PATTERN_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cc/text/json.h"
#include "cc/text/regex.h"
#include "cc/runtime/status.h"

namespace pteforge {

class Pattern {
 public:
  static StatusOr<Pattern> FromJson(const Json& pattern, const std::string& where);
  // From the "pattern" member of a component's `config`.
  static StatusOr<Pattern> FromConfig(const Json& config, const std::string& where);
  static StatusOr<Pattern> FromRegex(std::string_view regex, const std::string& where);

  // The non-overlapping matches in `text` (valid UTF-8) as [begin, end) byte offsets.
  StatusOr<std::vector<std::pair<size_t, size_t>>> FindMatches(std::string_view text) const;

  // `text` with every match replaced by `content`.
  StatusOr<std::string> ReplaceAll(std::string_view text, std::string_view content) const;

 private:
  std::string literal_;         // when regex_ is empty
  std::optional<Regex> regex_;
};

// What the Replace normalizer and decoder do: every match of "pattern" becomes "content".
class Replacement {
 public:
  static StatusOr<Replacement> FromConfig(const Json& config, const std::string& where);
  Status Apply(std::string* text) const;

 private:
  Replacement(Pattern pattern, std::string content) : pattern_(std::move(pattern)), content_(std::move(content)) {}
  Pattern pattern_;
  std::string content_;
};

}  // namespace pteforge

#endif  // PTEFORGE_CC_TEXT_PATTERN_H_
