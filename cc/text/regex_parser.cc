#include "cc/text/regex_syntax.h"

#include <string>

#include "cc/text/utf8.h"

namespace pteforge {
namespace regex_syntax {
namespace {

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

}  // namespace

Status Parse(std::string_view pattern, std::vector<Sequence>* alternatives) {
  return Parser(pattern).Parse(alternatives);
}

}  // namespace regex_syntax
}  // namespace pteforge
