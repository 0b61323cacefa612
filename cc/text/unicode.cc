#include "cc/text/unicode.h"

#include <cstdlib>
#include <memory>

#include <utf8proc.h>

#include "cc/text/utf8.h"

namespace pteforge {
namespace unicode {
namespace {

// utf8proc_map with `options` on `text`, whose result utf8proc allocates.
StatusOr<std::string> Map(std::string_view text, utf8proc_option_t options, const char* what) {
  utf8proc_uint8_t* mapped = nullptr;
  const utf8proc_ssize_t length =
      utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(text.data()), static_cast<utf8proc_ssize_t>(text.size()),
                   &mapped, options);
  std::unique_ptr<utf8proc_uint8_t, decltype(&std::free)> owned(mapped, &std::free);
  if (length < 0) {
    return Failure(Error::InvalidArgument, "%s of a %zu-byte text: %s", what, text.size(),
                   utf8proc_errmsg(length));
  }
  return std::string(reinterpret_cast<const char*>(mapped), static_cast<size_t>(length));
}

}  // namespace

const char* UnicodeVersion() { return utf8proc_unicode_version(); }

char MajorCategory(char32_t c) { return utf8proc_category_string(static_cast<utf8proc_int32_t>(c))[0]; }

bool IsWhiteSpace(char32_t c) {
  // White_Space (PropList.txt) is the separators (Zs, Zl, Zp) and five controls.
  switch (utf8proc_category(static_cast<utf8proc_int32_t>(c))) {
    case UTF8PROC_CATEGORY_ZS:
    case UTF8PROC_CATEGORY_ZL:
    case UTF8PROC_CATEGORY_ZP:
      return true;
    default:
      return (c >= 0x09 && c <= 0x0D) || c == 0x85;
  }
}

StatusOr<std::string> Nfd(std::string_view text) {
  return Map(text, static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_DECOMPOSE), "NFD");
}

StatusOr<std::string> Nfc(std::string_view text) {
  return Map(text, static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE), "NFC");
}

StatusOr<std::string> Lowercase(std::string_view text) {
  // utf8proc has the simple (one character) mappings. Of the full mappings in
  // SpecialCasing.txt without conditions, one lowercases to more than one character:
  // U+0130 to "i" + U+0307 (checked against Python's str.lower over all code points).
  constexpr char32_t kCapitalIWithDotAbove = 0x130;
  std::string out;
  out.reserve(text.size());
  for (char32_t c : utf8::Decode(text)) {
    if (c == kCapitalIWithDotAbove) {
      out += "i\xCC\x87";
      continue;
    }
    utf8::Append(static_cast<char32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(c))), &out);
  }
  return out;
}

}  // namespace unicode
}  // namespace pteforge
