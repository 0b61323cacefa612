// Unicode properties, normalization and case for the tokenizer, from utf8proc (Debian
// 12's utf8proc 2.8 has Unicode 15.0; UnicodeVersion() says which).
//
// What the version implies: Hugging Face tokenizers 0.23.3 uses Unicode 16.0 (Rust's
// char methods, unicode-normalization), so code points assigned in Unicode 16.0 (Garay,
// Todhri, Kawi's later additions, ...) are unassigned here: not letters or numbers,
// without decompositions. For every code point assigned in Unicode 14 (Python 3.11's
// unicodedata, which the golden test draws its random text from) the general category,
// NFC, NFD and lowercase mapping agree with Python's (checked over all code points when
// this moved to utf8proc).
//
// Stateless functions; thread-safe.
#ifndef PTEFORGE_CC_TEXT_UNICODE_H_
#define PTEFORGE_CC_TEXT_UNICODE_H_

#include <string>
#include <string_view>

#include "cc/runtime/status.h"

namespace pteforge {
namespace unicode {

const char* UnicodeVersion();

// The first letter of the general category: 'L', 'M', 'N', 'P', 'S', 'Z' or 'C'
// (unassigned code points are Cn).
char MajorCategory(char32_t c);
// Rust's char::is_numeric (Nd, Nl, No), which the Digits pre-tokenizer splits on.
inline bool IsNumber(char32_t c) { return MajorCategory(c) == 'N'; }
// The White_Space property: Rust's char::is_whitespace.
bool IsWhiteSpace(char32_t c);

// Canonical decomposition (NFD), and decomposition then composition (NFC), of valid
// UTF-8 text. Errors only when out of memory or past utf8proc's size limit.
StatusOr<std::string> Nfd(std::string_view text);
StatusOr<std::string> Nfc(std::string_view text);

// Each character's full lowercase mapping on its own (Rust's char::to_lowercase, which
// tokenizers' Lowercase normalizer applies: no context, so no final-sigma rule).
StatusOr<std::string> Lowercase(std::string_view text);

}  // namespace unicode
}  // namespace pteforge

#endif  // PTEFORGE_CC_TEXT_UNICODE_H_
