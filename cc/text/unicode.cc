#include "cc/text/unicode.h"

#include <algorithm>
#include <cstdint>
#include <iterator>

namespace pteforge {
namespace unicode {
namespace {

struct CategoryRange {
  char32_t first, last;
  unsigned char category;
};
struct CombiningClassRange {
  char32_t first, last;
  unsigned char combining_class;
};
struct Decomposition {
  char32_t code_point, first, second;  // second is 0 for a singleton
};
struct Composition {
  char32_t first, second, composite;
};
struct LowercaseMapping {
  char32_t code_point, lower[3];  // unused entries are 0
};
struct CaseFold {
  char32_t code_point, folded;
};

#include "cc/text/unicode_data.inc"

// Hangul syllables are composed and decomposed by arithmetic (Unicode 3.12).
constexpr char32_t kHangulBase = 0xAC00, kLeadBase = 0x1100, kVowelBase = 0x1161,
                   kTrailBase = 0x11A7;
constexpr char32_t kLeadCount = 19, kVowelCount = 21, kTrailCount = 28;
constexpr char32_t kSyllableCount = kLeadCount * kVowelCount * kTrailCount;

// The entry of a table sorted by `key` whose key equals c, or nullptr.
template <typename Entry, size_t N, typename Key>
const Entry* Find(const Entry (&table)[N], char32_t c, Key key) {
  const Entry* end = table + N;
  const Entry* it =
      std::lower_bound(table, end, c, [&](const Entry& e, char32_t v) { return key(e) < v; });
  return it != end && key(*it) == c ? it : nullptr;
}

// The range containing c in a table of sorted, disjoint ranges, or nullptr.
template <typename Range, size_t N>
const Range* FindRange(const Range (&table)[N], char32_t c) {
  const Range* end = table + N;
  const Range* it =
      std::upper_bound(table, end, c, [](char32_t v, const Range& r) { return v < r.first; });
  if (it == table) return nullptr;
  --it;
  return c <= it->last ? it : nullptr;
}

unsigned char CombiningClass(char32_t c) {
  const CombiningClassRange* range = FindRange(kCombiningClasses, c);
  return range == nullptr ? 0 : range->combining_class;
}

void AppendDecomposed(char32_t c, std::u32string* out) {
  if (c >= kHangulBase && c < kHangulBase + kSyllableCount) {
    const char32_t index = c - kHangulBase;
    out->push_back(kLeadBase + index / (kVowelCount * kTrailCount));
    out->push_back(kVowelBase + (index % (kVowelCount * kTrailCount)) / kTrailCount);
    if (index % kTrailCount != 0) out->push_back(kTrailBase + index % kTrailCount);
    return;
  }
  const Decomposition* d = Find(kDecompositions, c, [](const Decomposition& e) { return e.code_point; });
  if (d == nullptr) {
    out->push_back(c);
    return;
  }
  AppendDecomposed(d->first, out);  // depth bounded by the tables (at most a few steps)
  if (d->second != 0) AppendDecomposed(d->second, out);
}

// The composite of a starter and a following character, or 0.
char32_t Compose(char32_t first, char32_t second) {
  if (first >= kLeadBase && first < kLeadBase + kLeadCount && second >= kVowelBase &&
      second < kVowelBase + kVowelCount) {
    return kHangulBase + ((first - kLeadBase) * kVowelCount + (second - kVowelBase)) * kTrailCount;
  }
  if (first >= kHangulBase && first < kHangulBase + kSyllableCount &&
      (first - kHangulBase) % kTrailCount == 0 && second > kTrailBase &&
      second < kTrailBase + kTrailCount) {
    return first + (second - kTrailBase);
  }
  const Composition* end = std::end(kCompositions);
  const Composition* it = std::lower_bound(
      std::begin(kCompositions), end, std::make_pair(first, second),
      [](const Composition& e, const std::pair<char32_t, char32_t>& v) {
        return e.first != v.first ? e.first < v.first : e.second < v.second;
      });
  return it != end && it->first == first && it->second == second ? it->composite : 0;
}

}  // namespace

const char* UnicodeVersion() { return kUnicodeVersion; }

Category CategoryOf(char32_t code_point) {
  const CategoryRange* range = FindRange(kCategoryRanges, code_point);
  return range == nullptr ? Category::kCn : static_cast<Category>(range->category);
}

char MajorCategory(Category category) {
  static constexpr char kMajor[] = "CLLLLLMMMNNNPPPPPPPSSSSZZZCCCC";
  return kMajor[static_cast<int>(category)];
}

bool ParseCategoryName(std::string_view name, std::string* major, Category* exact) {
  static constexpr const char* kNames[] = {
      "Cn", "Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "No", "Pc", "Pd", "Ps",
      "Pe", "Pi", "Pf", "Po", "Sm", "Sc", "Sk", "So", "Zs", "Zl", "Zp", "Cc", "Cf", "Cs", "Co"};
  if (name.size() == 1 && std::string_view("LMNPSZC").find(name[0]) != std::string_view::npos) {
    *major = std::string(name);
    return true;
  }
  for (size_t i = 0; i < std::size(kNames); ++i) {
    if (name == kNames[i]) {
      major->clear();
      *exact = static_cast<Category>(i);
      return true;
    }
  }
  return false;
}

bool IsWhiteSpace(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F ||
         c == 0x205F || c == 0x3000;
}

std::u32string Nfd(std::u32string_view text) {
  std::u32string out;
  out.reserve(text.size());
  for (char32_t c : text) AppendDecomposed(c, &out);
  // Canonical ordering: a stable sort of each run of non-starters by combining class.
  size_t i = 0;
  while (i < out.size()) {
    if (CombiningClass(out[i]) == 0) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < out.size() && CombiningClass(out[end]) != 0) ++end;
    std::stable_sort(out.begin() + i, out.begin() + end,
                     [](char32_t a, char32_t b) { return CombiningClass(a) < CombiningClass(b); });
    i = end;
  }
  return out;
}

std::u32string Nfc(std::u32string_view text) {
  std::u32string decomposed = Nfd(text);
  std::u32string out;
  out.reserve(decomposed.size());
  size_t starter = std::u32string::npos;  // index in `out` of the last starter
  int last_class = -1;                    // class of the last character after it
  for (char32_t c : decomposed) {
    const int combining_class = CombiningClass(c);
    if (starter != std::u32string::npos) {
      // c is blocked from the starter if a character in between has class 0 or >= c's.
      const bool blocked = last_class != -1 && (last_class == 0 || last_class >= combining_class);
      if (!blocked) {
        const char32_t composite = Compose(out[starter], c);
        if (composite != 0) {
          out[starter] = composite;
          continue;
        }
      }
    }
    if (combining_class == 0) {
      starter = out.size();
      last_class = -1;
    } else {
      last_class = combining_class;
    }
    out.push_back(c);
  }
  return out;
}

std::u32string Lowercase(std::u32string_view text) {
  std::u32string out;
  out.reserve(text.size());
  for (char32_t c : text) {
    const LowercaseMapping* m = Find(kLowercase, c, [](const LowercaseMapping& e) { return e.code_point; });
    if (m == nullptr) {
      out.push_back(c);
      continue;
    }
    for (char32_t lower : m->lower) {
      if (lower != 0) out.push_back(lower);
    }
  }
  return out;
}

char32_t SimpleFold(char32_t c) {
  if (c < 0x80) return c >= 'A' && c <= 'Z' ? c + 32 : c;
  const CaseFold* f = Find(kCaseFolds, c, [](const CaseFold& e) { return e.code_point; });
  return f == nullptr ? c : f->folded;
}

}  // namespace unicode
}  // namespace pteforge
