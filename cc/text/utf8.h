// UTF-8 decoding and encoding for the tokenizer, on utf8proc: strict decoding for input
// text (the first invalid byte is an error), and Rust's String::from_utf8_lossy for
// decoded bytes, which is what Hugging Face tokenizers' ByteLevel decoder does with them.
//
// Stateless functions; thread-safe.
#ifndef PTEFORGE_CC_TEXT_UTF8_H_
#define PTEFORGE_CC_TEXT_UTF8_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace pteforge {
namespace utf8 {

inline constexpr char32_t kReplacementCharacter = 0xFFFD;

// Length in bytes of the well-formed UTF-8 sequence starting at text[offset], or 0 if the
// bytes there are not one (no overlong forms, no surrogates, nothing past U+10FFFF).
size_t SequenceLength(std::string_view text, size_t offset);

// Offset of the first byte that is not part of well-formed UTF-8, or text.size().
size_t FirstInvalidByte(std::string_view text);

// The code points of well-formed UTF-8 text (the caller checked it). If byte_offsets is
// given, it receives the offset of each code point plus a final text.size().
std::u32string Decode(std::string_view text, std::vector<size_t>* byte_offsets = nullptr);

void Append(char32_t code_point, std::string* out);
std::string Encode(std::u32string_view code_points);

// Any bytes to valid UTF-8: each maximal ill-formed subsequence becomes one U+FFFD, as
// Rust's String::from_utf8_lossy does.
std::string Lossy(std::string_view bytes);

// True if `text` ends with U+FFFD.
bool EndsWithReplacement(std::string_view text);

}  // namespace utf8
}  // namespace pteforge

#endif  // PTEFORGE_CC_TEXT_UTF8_H_
