#include "cc/text/utf8.h"

#include <utf8proc.h>

namespace pteforge {
namespace utf8 {
namespace {

const utf8proc_uint8_t* Bytes(std::string_view text) { return reinterpret_cast<const utf8proc_uint8_t*>(text.data()); }

// The code point at text[offset] and its length, or a length <= 0 if invalid there.
utf8proc_ssize_t Next(std::string_view text, size_t offset, utf8proc_int32_t* code_point) {
  return utf8proc_iterate(Bytes(text) + offset, static_cast<utf8proc_ssize_t>(text.size() - offset), code_point);
}

// The length of the maximal ill-formed subpart at bytes[offset] (which starts no valid
// sequence): the lead byte plus the bytes after it that still allowed a valid sequence,
// i.e. that utf8proc accepts once the sequence is completed with continuation bytes.
size_t IllFormedLength(std::string_view bytes, size_t offset) {
  const auto expected = static_cast<size_t>(utf8proc_utf8class[static_cast<unsigned char>(bytes[offset])]);
  size_t length = 1;
  utf8proc_int32_t ignored;
  while (length < expected && offset + length < bytes.size()) {
    std::string completed(bytes.substr(offset, length + 1));
    completed.resize(expected, '\x80');
    if (Next(completed, 0, &ignored) != static_cast<utf8proc_ssize_t>(expected)) break;
    ++length;
  }
  return length;
}

}  // namespace

size_t SequenceLength(std::string_view text, size_t offset) {
  utf8proc_int32_t code_point;
  const utf8proc_ssize_t length = Next(text, offset, &code_point);
  return length > 0 ? static_cast<size_t>(length) : 0;
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
    utf8proc_int32_t code_point;
    utf8proc_ssize_t length = Next(text, offset, &code_point);
    if (length <= 0) {  // not what callers promise; one U+FFFD per byte rather than a stall
      code_point = kReplacementCharacter;
      length = 1;
    }
    if (byte_offsets != nullptr) byte_offsets->push_back(offset);
    out.push_back(static_cast<char32_t>(code_point));
    offset += static_cast<size_t>(length);
  }
  if (byte_offsets != nullptr) byte_offsets->push_back(text.size());
  return out;
}

void Append(char32_t code_point, std::string* out) {
  utf8proc_uint8_t bytes[4];
  const utf8proc_ssize_t length = utf8proc_encode_char(static_cast<utf8proc_int32_t>(code_point), bytes);
  out->append(reinterpret_cast<const char*>(bytes), static_cast<size_t>(length));
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
    const size_t length = SequenceLength(bytes, offset);
    if (length > 0) {
      out.append(bytes.substr(offset, length));
      offset += length;
    } else {
      Append(kReplacementCharacter, &out);
      offset += IllFormedLength(bytes, offset);
    }
  }
  return out;
}

bool EndsWithReplacement(std::string_view text) {
  return text.size() >= 3 && text.substr(text.size() - 3) == "\xEF\xBF\xBD";
}

}  // namespace utf8
}  // namespace pteforge
