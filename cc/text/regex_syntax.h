// The parsed form of a Regex (cc/text/regex.h), shared by its parser (regex_parser.cc)
// and its matcher (regex.cc). Internal to //cc/text:tokenizer.
#ifndef PTEFORGE_CC_TEXT_REGEX_SYNTAX_H_
#define PTEFORGE_CC_TEXT_REGEX_SYNTAX_H_

#include <limits>
#include <string_view>
#include <vector>

#include "cc/text/regex.h"
#include "cc/text/unicode.h"
#include "cc/runtime/status.h"

namespace pteforge {
namespace regex_syntax {

// The `max` of a quantifier with no upper bound.
constexpr int kUnbounded = std::numeric_limits<int>::max();

// One test on a code point: a range, a general category (major letter or exact) or a
// named property (\s, \w); possibly negated.
struct CharTest {
  enum class Kind { kRange, kMajorCategory, kCategory, kWhiteSpace, kWord } kind;
  char32_t first = 0, last = 0;
  char major = 0;
  unicode::Category category = unicode::Category::kCn;
  bool negated = false;

  bool Matches(char32_t c) const {
    bool result = false;
    switch (kind) {
      case Kind::kRange: result = c >= first && c <= last; break;
      case Kind::kMajorCategory: result = unicode::MajorCategory(unicode::CategoryOf(c)) == major; break;
      case Kind::kCategory: result = unicode::CategoryOf(c) == category; break;
      case Kind::kWhiteSpace: result = unicode::IsWhiteSpace(c); break;
      case Kind::kWord: {
        const unicode::Category cat = unicode::CategoryOf(c);
        const char m = unicode::MajorCategory(cat);
        result = m == 'L' || m == 'M' || cat == unicode::Category::kNd || cat == unicode::Category::kPc;
        break;
      }
    }
    return result != negated;
  }
};

// A set of code points: a literal, '.', an escape such as \s, or a bracketed class.
struct CharSet {
  std::vector<CharTest> tests;  // any of them
  bool negated = false;
  bool case_insensitive = false;

  bool MatchesExactly(char32_t c) const {
    for (const CharTest& test : tests) {
      if (test.Matches(c)) return !negated;
    }
    return negated;
  }
  bool Matches(char32_t c) const {
    if (MatchesExactly(c)) return true;
    if (!case_insensitive) return false;
    const char32_t folded = unicode::SimpleFold(c);
    if (folded != c && MatchesExactly(folded)) return true;
    // Patterns are usually written in lowercase; an uppercase ASCII letter in the text
    // folds onto them above, a lowercase one must also be tried against [A-Z].
    if (c >= 'a' && c <= 'z') return MatchesExactly(c - 32);
    return false;
  }
};

inline CharTest Range(char32_t first, char32_t last) {
  CharTest test{CharTest::Kind::kRange};
  test.first = first;
  test.last = last;
  return test;
}

inline CharTest Named(CharTest::Kind kind, bool negated) {
  CharTest test{kind};
  test.negated = negated;
  return test;
}


}  // namespace regex_syntax

// One item of a sequence: a character set or a group (plain or lookahead), with its
// quantifier (min = max = 1 for none).
struct Regex::Node {
  enum class Kind { kChar, kGroup, kLookahead, kNegativeLookahead } kind = Kind::kChar;
  regex_syntax::CharSet set;                    // kChar
  std::vector<std::vector<Node>> alternatives;  // the groups
  int min = 1, max = 1;
  bool greedy = true;
};

namespace regex_syntax {

using Node = Regex::Node;
using Sequence = std::vector<Node>;

// Parses `pattern` into its top-level alternatives; errors name the construct and byte.
Status Parse(std::string_view pattern, std::vector<Sequence>* alternatives);

}  // namespace regex_syntax
}  // namespace pteforge

#endif  // PTEFORGE_CC_TEXT_REGEX_SYNTAX_H_
