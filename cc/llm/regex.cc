#include "cc/llm/regex.h"

#include <limits>

#include "cc/llm/unicode.h"
#include "cc/llm/utf8.h"

namespace pteforge {
namespace {

constexpr int kUnbounded = std::numeric_limits<int>::max();
// Iterations of a repeated group are matched by recursion (a few hundred bytes of stack
// each); past this many the match stops with an error instead of risking the stack of a
// small thread. Quantified single characters (\p{L}+) loop and have no such limit.
constexpr int kMaxGroupRepetitions = 1000;

// One test on a code point: a range, a general category (major letter or exact) or a
// named property.
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

CharTest Range(char32_t first, char32_t last) {
  CharTest test{CharTest::Kind::kRange};
  test.first = first;
  test.last = last;
  return test;
}

CharTest Named(CharTest::Kind kind, bool negated) {
  CharTest test{kind};
  test.negated = negated;
  return test;
}

}  // namespace

struct Regex::Node {
  enum class Kind { kChar, kGroup, kLookahead, kNegativeLookahead } kind = Kind::kChar;
  CharSet set;                                   // kChar
  std::vector<std::vector<Node>> alternatives;   // the others
  int min = 1, max = 1;
  bool greedy = true;
};

namespace {

using Node = Regex::Node;
using Sequence = std::vector<Node>;

class Parser {
 public:
  explicit Parser(std::string_view pattern) : pattern_(pattern) {
    code_points_ = utf8::Decode(pattern, &offsets_);
  }

  Status Parse(std::vector<Sequence>* alternatives) {
    if (utf8::FirstInvalidByte(pattern_) != pattern_.size()) {
      return Failure(Error::InvalidArgument, "regex '%s': not valid UTF-8", std::string(pattern_).c_str());
    }
    PTEFORGE_RETURN_IF_ERROR(ParseAlternatives(alternatives, false, 0));
    if (pos_ < code_points_.size()) return Fail("unbalanced ')'");
    return Status();
  }

 private:
  static constexpr int kMaxNesting = 100;

  Status Fail(const char* problem) const {
    const size_t byte = pos_ < code_points_.size() ? offsets_[pos_] : pattern_.size();
    return Failure(Error::InvalidArgument, "regex '%s': %s at byte %zu (supported: literals, '.', [...], "
                   "\\s \\d \\w \\p{..}, groups, (?i:...), (?=...), (?!...), ? * + {m,n})",
                   std::string(pattern_).c_str(), problem, byte);
  }

  bool AtEnd() const { return pos_ >= code_points_.size(); }
  char32_t Peek() const { return AtEnd() ? 0 : code_points_[pos_]; }
  bool Accept(char32_t c) {
    if (Peek() != c || AtEnd()) return false;
    ++pos_;
    return true;
  }

  Status ParseAlternatives(std::vector<Sequence>* alternatives, bool case_insensitive, int depth) {
    if (depth > kMaxNesting) return Fail("groups nested too deeply");
    alternatives->emplace_back();
    while (!AtEnd() && Peek() != ')') {
      if (Accept('|')) {
        alternatives->emplace_back();
        continue;
      }
      if (Peek() == '(' && pos_ + 2 < code_points_.size() && code_points_[pos_ + 1] == '?' &&
          code_points_[pos_ + 2] == 'i' && pos_ + 3 < code_points_.size() && code_points_[pos_ + 3] == ')') {
        pos_ += 4;  // (?i): the rest of this group is case-insensitive
        case_insensitive = true;
        continue;
      }
      Node node;
      PTEFORGE_RETURN_IF_ERROR(ParseAtom(&node, case_insensitive, depth));
      PTEFORGE_RETURN_IF_ERROR(ParseQuantifier(&node));
      alternatives->back().push_back(std::move(node));
    }
    return Status();
  }

  Status ParseGroup(Node* node, bool case_insensitive, int depth) {
    ++pos_;  // '('
    node->kind = Node::Kind::kGroup;
    if (Accept('?')) {
      if (Accept(':')) {
      } else if (Accept('=')) {
        node->kind = Node::Kind::kLookahead;
      } else if (Accept('!')) {
        node->kind = Node::Kind::kNegativeLookahead;
      } else if (Peek() == 'i' || Peek() == '-') {
        const bool negate = Accept('-');
        if (!Accept('i')) return Fail("unsupported group flag");
        if (!Accept(':')) return Fail("unsupported group flag");
        case_insensitive = !negate;
      } else if (Accept('<')) {
        if (Peek() == '=' || Peek() == '!') return Fail("lookbehind is not supported");
        while (!AtEnd() && Peek() != '>') ++pos_;  // a named group: the name is not needed
        if (!Accept('>')) return Fail("unterminated group name");
      } else {
        return Fail("unsupported group construct");
      }
    }
    PTEFORGE_RETURN_IF_ERROR(ParseAlternatives(&node->alternatives, case_insensitive, depth + 1));
    if (!Accept(')')) return Fail("missing ')'");
    return Status();
  }

  Status ParseAtom(Node* node, bool case_insensitive, int depth) {
    const char32_t c = Peek();
    node->set.case_insensitive = case_insensitive;
    switch (c) {
      case '(':
        return ParseGroup(node, case_insensitive, depth);
      case '[':
        ++pos_;
        return ParseClass(&node->set);
      case '.':
        ++pos_;
        node->set.negated = true;
        node->set.tests.push_back(Range('\n', '\n'));
        return Status();
      case '\\':
        ++pos_;
        return ParseEscape(&node->set.tests, false);
      case '^': case '$':
        return Fail("anchors are not supported");
      case '*': case '+': case '?': case '{':
        return Fail("quantifier with nothing to repeat");
      default:
        ++pos_;
        node->set.tests.push_back(Range(c, c));
        return Status();
    }
  }

  // After a '\': one test (or several for a negated shorthand inside a class).
  Status ParseEscape(std::vector<CharTest>* tests, bool in_class) {
    if (AtEnd()) return Fail("pattern ends with '\\'");
    const char32_t c = code_points_[pos_++];
    switch (c) {
      case 's': case 'S': tests->push_back(Named(CharTest::Kind::kWhiteSpace, c == 'S')); return Status();
      case 'w': case 'W': tests->push_back(Named(CharTest::Kind::kWord, c == 'W')); return Status();
      case 'd': case 'D': {
        CharTest test = Named(CharTest::Kind::kCategory, c == 'D');
        test.category = unicode::Category::kNd;
        tests->push_back(test);
        return Status();
      }
      case 'p': case 'P': return ParseProperty(tests, c == 'P');
      case 't': tests->push_back(Range('\t', '\t')); return Status();
      case 'n': tests->push_back(Range('\n', '\n')); return Status();
      case 'r': tests->push_back(Range('\r', '\r')); return Status();
      case 'f': tests->push_back(Range('\f', '\f')); return Status();
      case 'v': tests->push_back(Range('\v', '\v')); return Status();
      case 'e': tests->push_back(Range(0x1B, 0x1B)); return Status();
      case 'x': case 'u': {
        char32_t value;
        PTEFORGE_RETURN_IF_ERROR(ParseHexEscape(c, &value));
        tests->push_back(Range(value, value));
        return Status();
      }
      default:
        break;
    }
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
      --pos_;
      return Fail(in_class ? "unsupported escape in a class" : "unsupported escape (anchors, back-references)");
    }
    tests->push_back(Range(c, c));  // escaped punctuation stands for itself
    return Status();
  }

  Status ParseHexEscape(char32_t kind, char32_t* value) {
    const bool braced = kind == 'x' && Accept('{');
    const int digits = braced ? 8 : kind == 'x' ? 2 : 4;
    *value = 0;
    int count = 0;
    for (; count < digits && !AtEnd(); ++count) {
      const char32_t h = Peek();
      int digit;
      if (h >= '0' && h <= '9') digit = h - '0';
      else if (h >= 'a' && h <= 'f') digit = h - 'a' + 10;
      else if (h >= 'A' && h <= 'F') digit = h - 'A' + 10;
      else break;
      *value = *value * 16 + digit;
      ++pos_;
    }
    if (count == 0 || (!braced && count != digits)) return Fail("malformed hex escape");
    if (braced && !Accept('}')) return Fail("malformed \\x{...} escape");
    if (*value > 0x10FFFF) return Fail("code point past U+10FFFF");
    return Status();
  }

  Status ParseProperty(std::vector<CharTest>* tests, bool negated) {
    if (!Accept('{')) return Fail("expected '{' after \\p");
    if (Accept('^')) negated = !negated;
    std::string name;
    while (!AtEnd() && Peek() != '}') name.push_back(static_cast<char>(code_points_[pos_++]));
    if (!Accept('}')) return Fail("unterminated \\p{...}");
    static const std::pair<const char*, const char*> kLongNames[] = {
        {"Letter", "L"}, {"Mark", "M"}, {"Number", "N"}, {"Punctuation", "P"},
        {"Symbol", "S"}, {"Separator", "Z"}, {"Other", "C"}};
    for (const auto& [long_name, short_name] : kLongNames) {
      if (name == long_name) name = short_name;
    }
    if (name == "White_Space" || name == "Space") {
      tests->push_back(Named(CharTest::Kind::kWhiteSpace, negated));
      return Status();
    }
    std::string major;
    unicode::Category category;
    if (!unicode::ParseCategoryName(name, &major, &category)) {
      return Fail("unsupported \\p{...} property (general categories and White_Space are)");
    }
    CharTest test = Named(major.empty() ? CharTest::Kind::kCategory : CharTest::Kind::kMajorCategory, negated);
    if (major.empty()) test.category = category;
    else test.major = major[0];
    tests->push_back(test);
    return Status();
  }

  Status ParseClass(CharSet* set) {
    set->negated = Accept('^');
    bool first = true;
    while (true) {
      if (AtEnd()) return Fail("unterminated '['");
      char32_t c = Peek();
      if (c == ']' && !first) {
        ++pos_;
        return Status();
      }
      first = false;
      if (c == '[') return Fail("nested classes are not supported");
      if (c == '&' && pos_ + 1 < code_points_.size() && code_points_[pos_ + 1] == '&') {
        return Fail("class intersection is not supported");
      }
      ++pos_;
      if (c == '\\') {
        const size_t before = set->tests.size();
        PTEFORGE_RETURN_IF_ERROR(ParseEscape(&set->tests, true));
        const CharTest& added = set->tests.back();
        if (set->tests.size() != before + 1 || added.kind != CharTest::Kind::kRange || added.first != added.last) {
          continue;  // a shorthand (\s, \p{L}): no range from it
        }
        c = added.first;
        set->tests.pop_back();
      }
      char32_t last = c;
      if (Peek() == '-' && pos_ + 1 < code_points_.size() && code_points_[pos_ + 1] != ']') {
        ++pos_;
        last = code_points_[pos_++];
        if (last == '\\') {
          std::vector<CharTest> end;
          PTEFORGE_RETURN_IF_ERROR(ParseEscape(&end, true));
          if (end.back().kind != CharTest::Kind::kRange) return Fail("bad class range");
          last = end.back().first;
        }
        if (last < c) return Fail("class range out of order");
      }
      set->tests.push_back(Range(c, last));
    }
  }

  Status ParseCount(int* value) {
    if (!(Peek() >= '0' && Peek() <= '9')) return Fail("expected a number in {...}");
    long long n = 0;
    while (Peek() >= '0' && Peek() <= '9' && !AtEnd()) {
      n = n * 10 + (code_points_[pos_++] - '0');
      if (n > 100000) return Fail("repetition count too large");
    }
    *value = static_cast<int>(n);
    return Status();
  }

  Status ParseQuantifier(Node* node) {
    const char32_t c = Peek();
    if (c == '?' || c == '*' || c == '+') {
      ++pos_;
      node->min = c == '+' ? 1 : 0;
      node->max = c == '?' ? 1 : kUnbounded;
    } else if (c == '{') {
      ++pos_;
      node->min = 0;
      if (Peek() != ',') PTEFORGE_RETURN_IF_ERROR(ParseCount(&node->min));
      node->max = node->min;
      if (Accept(',')) {
        node->max = kUnbounded;
        if (Peek() != '}') PTEFORGE_RETURN_IF_ERROR(ParseCount(&node->max));
      }
      if (!Accept('}')) return Fail("malformed {m,n} quantifier");
      if (node->max < node->min) return Fail("{m,n} with n < m");
    } else {
      return Status();
    }
    if (node->kind == Node::Kind::kLookahead || node->kind == Node::Kind::kNegativeLookahead) {
      return Fail("quantified lookahead");
    }
    if (Accept('?')) node->greedy = false;
    else if (Peek() == '+') return Fail("possessive quantifiers are not supported");
    if (Peek() == '?' || Peek() == '*' || Peek() == '{') return Fail("nested quantifier");
    return Status();
  }

  std::string_view pattern_;
  std::u32string code_points_;
  std::vector<size_t> offsets_;
  size_t pos_ = 0;
};

// What to match after the current sequence ends: the rest of an enclosing sequence,
// or another iteration of a repeated group. A linked list on the stack.
struct Continuation {
  const Sequence* sequence;
  size_t index;
  const Continuation* next;
  // For a repeated group: the group, its iteration count and where the iteration began.
  const Node* repeat = nullptr;
  int count = 0;
  size_t iteration_start = 0;
};

class Matcher {
 public:
  explicit Matcher(std::u32string_view text) : text_(text) {}

  // Matches `alternatives` at `start`; the end of the match in *end.
  bool MatchAt(const std::vector<Sequence>& alternatives, size_t start, size_t* end) {
    for (const Sequence& alternative : alternatives) {
      if (MatchSequence(alternative, 0, start, nullptr)) {
        *end = end_;
        return true;
      }
    }
    return false;
  }

  bool too_deep() const { return too_deep_; }

 private:
  bool Continue(size_t pos, const Continuation* k) {
    if (k == nullptr) {
      end_ = pos;
      return true;
    }
    if (k->repeat != nullptr) return MatchRepeat(*k->repeat, k->count, k->iteration_start, pos, *k->next);
    return MatchSequence(*k->sequence, k->index, pos, k->next);
  }

  bool MatchAlternatives(const std::vector<Sequence>& alternatives, size_t pos, const Continuation* k) {
    for (const Sequence& alternative : alternatives) {
      if (MatchSequence(alternative, 0, pos, k)) return true;
    }
    return false;
  }

  // `count` iterations of `group` are done, the last one from `iteration_start` to
  // `pos`; then `after` (the rest of the enclosing sequence).
  bool MatchRepeat(const Node& group, int count, size_t iteration_start, size_t pos,
                   const Continuation& after) {
    // Counted over all repeated groups at once: nested ones multiply.
    if (repeat_depth_ >= kMaxGroupRepetitions) {
      too_deep_ = true;
      return false;
    }
    ++repeat_depth_;
    const bool matched = MatchRepeatIteration(group, count, iteration_start, pos, after);
    --repeat_depth_;
    return matched;
  }

  bool MatchRepeatIteration(const Node& group, int count, size_t iteration_start, size_t pos,
                            const Continuation& after) {
    // An empty iteration past the minimum would loop forever: stop repeating.
    const bool may_repeat = count < group.max && !(count > group.min && pos == iteration_start);
    const Continuation again{nullptr, 0, &after, &group, count + 1, pos};
    if (group.greedy) {
      if (may_repeat && MatchAlternatives(group.alternatives, pos, &again)) return true;
      return count >= group.min && Continue(pos, &after);
    }
    if (count >= group.min && Continue(pos, &after)) return true;
    return may_repeat && MatchAlternatives(group.alternatives, pos, &again);
  }

  bool MatchSequence(const Sequence& sequence, size_t index, size_t pos, const Continuation* k) {
    if (too_deep_) return false;
    if (index == sequence.size()) return Continue(pos, k);
    const Node& node = sequence[index];
    const Continuation rest{&sequence, index + 1, k};
    switch (node.kind) {
      case Node::Kind::kChar: {
        size_t available = 0;
        while (available < static_cast<size_t>(node.max) && pos + available < text_.size() &&
               node.set.Matches(text_[pos + available])) {
          ++available;
        }
        const size_t min = static_cast<size_t>(node.min);
        if (available < min) return false;
        if (node.greedy) {
          for (size_t n = available + 1; n-- > min;) {
            if (MatchSequence(sequence, index + 1, pos + n, k)) return true;
          }
        } else {
          for (size_t n = min; n <= available; ++n) {
            if (MatchSequence(sequence, index + 1, pos + n, k)) return true;
          }
        }
        return false;
      }
      case Node::Kind::kGroup:
        if (node.min == 1 && node.max == 1) return MatchAlternatives(node.alternatives, pos, &rest);
        return MatchRepeat(node, 0, pos, pos, rest);
      case Node::Kind::kLookahead:
      case Node::Kind::kNegativeLookahead: {
        const size_t saved_end = end_;
        const bool found = MatchAlternatives(node.alternatives, pos, nullptr);
        end_ = saved_end;
        if (found != (node.kind == Node::Kind::kLookahead)) return false;
        return MatchSequence(sequence, index + 1, pos, k);
      }
    }
    return false;
  }

  std::u32string_view text_;
  size_t end_ = 0;
  int repeat_depth_ = 0;
  bool too_deep_ = false;
};

}  // namespace

StatusOr<Regex> Regex::Compile(std::string_view pattern) {
  auto alternatives = std::make_shared<std::vector<Sequence>>();
  PTEFORGE_RETURN_IF_ERROR(Parser(pattern).Parse(alternatives.get()));
  Regex regex;
  regex.pattern_ = std::string(pattern);
  regex.alternatives_ = std::move(alternatives);
  return regex;
}

StatusOr<std::vector<std::pair<size_t, size_t>>> Regex::FindAll(std::u32string_view text) const {
  std::vector<std::pair<size_t, size_t>> matches;
  Matcher matcher(text);
  size_t start = 0;
  bool previous_ended_here = false;  // the last match was not empty and ended at `start`
  while (start <= text.size()) {
    size_t end = 0;
    if (matcher.MatchAt(*alternatives_, start, &end)) {
      if (end == start && previous_ended_here) {
        previous_ended_here = false;  // no empty match right after a match
        ++start;
        continue;
      }
      matches.emplace_back(start, end);
      previous_ended_here = end > start;
      start = end > start ? end : start + 1;
      continue;
    }
    if (matcher.too_deep()) {
      return Failure(Error::InvalidArgument,
                     "regex '%s': a repeated group went past %d iterations on this text",
                     pattern_.c_str(), kMaxGroupRepetitions);
    }
    previous_ended_here = false;
    ++start;
  }
  return matches;
}

}  // namespace pteforge
