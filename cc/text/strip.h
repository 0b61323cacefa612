// Text without the ASCII whitespace around it (Python's str.strip on what tools print).
#ifndef PTEFORGE_CC_TEXT_STRIP_H_
#define PTEFORGE_CC_TEXT_STRIP_H_

#include <string>

namespace pteforge {

inline std::string StripWhitespace(const std::string& text) {
  constexpr const char* kWhitespace = " \t\n\r\f\v";
  const size_t first = text.find_first_not_of(kWhitespace);
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(kWhitespace) - first + 1);
}

}  // namespace pteforge

#endif  // PTEFORGE_CC_TEXT_STRIP_H_
