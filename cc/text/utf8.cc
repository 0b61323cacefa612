#include "cc/text/utf8.h"

namespace pteforge {
namespace utf8 {
namespace {

bool InRange(unsigned char byte, unsigned char low, unsigned char high) {
  return byte >= low && byte <= high;
}

// How many bytes after text[offset] continue a valid prefix of a sequence (0 to 3), and
// the sequence length the lead byte announces (0 for a byte that starts none).
struct Prefix {
  size_t valid_bytes;
  size_t expected_length;
};

Prefix ValidPrefix(std::string_view text, size_t offset) {
  const auto lead = static_cast<unsigned char>(text[offset]);
  size_t length = 0;
  unsigned char second_low = 0x80, second_high = 0xBF;
  if (lead < 0x80) return {1, 1};
  if (InRange(lead, 0xC2, 0xDF)) {
    length = 2;
  } else if (InRange(lead, 0xE0, 0xEF)) {
    length = 3;
    if (lead == 0xE0) second_low = 0xA0;
    if (lead == 0xED) second_high = 0x9F;  // no surrogates
  } else if (InRange(lead, 0xF0, 0xF4)) {
    length = 4;
    if (lead == 0xF0) second_low = 0x90;
    if (lead == 0xF4) second_high = 0x8F;  // nothing past U+10FFFF
  } else {
    return {0, 0};
  }
  size_t valid = 1;
  for (; valid < length && offset + valid < text.size(); ++valid) {
    const auto byte = static_cast<unsigned char>(text[offset + valid]);
    const bool ok = valid == 1 ? InRange(byte, second_low, second_high) : InRange(byte, 0x80, 0xBF);
    if (!ok) break;
  }
  return {valid, length};
}

}  // namespace

size_t SequenceLength(std::string_view text, size_t offset) {
  const Prefix prefix = ValidPrefix(text, offset);
  return prefix.valid_bytes == prefix.expected_length ? prefix.expected_length : 0;
}

size_t FirstInvalidByte(std::string_view text) {
  size_t offset = 0;
  while (offset < text.size()) {
    const size_t length = SequenceLength(text, offset);
    if (length == 0) return offset;
    offset += length;
  }
  return text.size();
}

std::u32string Decode(std::string_view text, std::vector<size_t>* byte_offsets) {
  std::u32string out;
  out.reserve(text.size());
  if (byte_offsets != nullptr) {
    byte_offsets->clear();
    byte_offsets->reserve(text.size() + 1);
  }
  size_t offset = 0;
  while (offset < text.size()) {
    const auto lead = static_cast<unsigned char>(text[offset]);
    const size_t length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
    char32_t code_point = length == 1 ? lead : lead & (0x7F >> length);
    for (size_t i = 1; i < length && offset + i < text.size(); ++i) {
      code_point = (code_point << 6) | (static_cast<unsigned char>(text[offset + i]) & 0x3F);
    }
    if (byte_offsets != nullptr) byte_offsets->push_back(offset);
    out.push_back(code_point);
    offset += length;
  }
  if (byte_offsets != nullptr) byte_offsets->push_back(text.size());
  return out;
}

void Append(char32_t code_point, std::string* out) {
  if (code_point < 0x80) {
    out->push_back(static_cast<char>(code_point));
  } else if (code_point < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (code_point >> 6)));
    out->push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  } else if (code_point < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (code_point >> 12)));
    out->push_back(static_cast<char>(0x80 | ((code_point >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (code_point >> 18)));
    out->push_back(static_cast<char>(0x80 | ((code_point >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((code_point >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  }
}

std::string Encode(std::u32string_view code_points) {
  std::string out;
  out.reserve(code_points.size());
  for (char32_t code_point : code_points) Append(code_point, &out);
  return out;
}

std::string Lossy(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  size_t offset = 0;
  while (offset < bytes.size()) {
    const Prefix prefix = ValidPrefix(bytes, offset);
    if (prefix.expected_length != 0 && prefix.valid_bytes == prefix.expected_length) {
      out.append(bytes.substr(offset, prefix.valid_bytes));
      offset += prefix.valid_bytes;
    } else {
      // The maximal ill-formed subpart: the lead byte and the continuation bytes that
      // were still possible (at least one byte).
      Append(kReplacementCharacter, &out);
      offset += prefix.valid_bytes == 0 ? 1 : prefix.valid_bytes;
    }
  }
  return out;
}

bool EndsWithReplacement(std::string_view text) {
  return text.size() >= 3 && text.substr(text.size() - 3) == "\xEF\xBF\xBD";
}

}  // namespace utf8
}  // namespace pteforge
