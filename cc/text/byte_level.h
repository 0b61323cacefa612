// GPT-2's byte-level alphabet: each of the 256 byte values as a printable character
// (bytes 33-126, 161-172 and 174-255 as themselves, the others as U+0100 onwards in
// order), as the ByteLevel pre-tokenizer and decoder of Hugging Face tokenizers use it.
//
// Constant tables; thread-safe.
#ifndef PTEFORGE_CC_TEXT_BYTE_LEVEL_H_
#define PTEFORGE_CC_TEXT_BYTE_LEVEL_H_

#include <string>
#include <string_view>

namespace pteforge {
namespace byte_level {

// Each byte of `bytes` as its character, in UTF-8.
std::string Encode(std::string_view bytes);

// The byte a character stands for, or -1 if it stands for none.
int ByteOf(char32_t c);

}  // namespace byte_level
}  // namespace pteforge

#endif  // PTEFORGE_CC_TEXT_BYTE_LEVEL_H_
