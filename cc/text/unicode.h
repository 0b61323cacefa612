// Unicode character properties and normalization for the tokenizer, from tables
// generated at build time by gen_unicode_tables.py out of Python's unicodedata
// (Unicode 14.0.0 with Python 3.11; UnicodeVersion() says which).
//
// What the version implies: Hugging Face tokenizers 0.23.3 uses Oniguruma with Unicode
// 16.0 for \p{L}, \p{N} and \s, and unicode-normalization for NFC. The code points
// assigned in Unicode 15.0 to 16.0 (about 9,300 letters such as Kawi, Todhri or Garay
// and 120 digits) are unassigned here: not letters, not numbers, and without
// decompositions. Every code point assigned in Unicode 14 is in the same \p{L}, \p{N},
// \p{P}, \p{S}, \p{M}, \p{Z} and \s as in tokenizers (checked over all code points
// against the Python package when the tables were introduced).
//
// Stateless functions over constant tables; thread-safe.
#ifndef PTEFORGE_CC_TEXT_UNICODE_H_
#define PTEFORGE_CC_TEXT_UNICODE_H_

#include <string>
#include <string_view>

namespace pteforge {
namespace unicode {

// General categories, in the generator's order.
enum class Category : unsigned char {
  kCn, kLu, kLl, kLt, kLm, kLo, kMn, kMc, kMe, kNd, kNl, kNo, kPc, kPd, kPs, kPe, kPi,
  kPf, kPo, kSm, kSc, kSk, kSo, kZs, kZl, kZp, kCc, kCf, kCs, kCo,
};

const char* UnicodeVersion();

Category CategoryOf(char32_t code_point);
// The first letter of the category's name: 'L', 'M', 'N', 'P', 'S', 'Z' or 'C'.
char MajorCategory(Category category);
// A one- or two-letter category name ("L", "Lu") to the test for it; false if unknown.
bool ParseCategoryName(std::string_view name, std::string* major, Category* exact);

inline bool IsLetter(char32_t c) { return MajorCategory(CategoryOf(c)) == 'L'; }
inline bool IsNumber(char32_t c) { return MajorCategory(CategoryOf(c)) == 'N'; }
// The White_Space property: Oniguruma's \s and Rust's char::is_whitespace.
bool IsWhiteSpace(char32_t c);

// Canonical decomposition then composition (NFD, NFC), Hangul included.
std::u32string Nfd(std::u32string_view text);
std::u32string Nfc(std::u32string_view text);

// Full lowercase mapping of each character on its own (Rust's char::to_lowercase).
std::u32string Lowercase(std::u32string_view text);

// Simple case folding, for case-insensitive regex comparisons.
char32_t SimpleFold(char32_t c);

}  // namespace unicode
}  // namespace pteforge

#endif  // PTEFORGE_CC_TEXT_UNICODE_H_
