#include "cc/text/byte_level.h"

#include <array>

#include "cc/text/utf8.h"

namespace pteforge {
namespace byte_level {
namespace {

bool StandsForItself(int byte) {
  return (byte >= 33 && byte <= 126) || (byte >= 161 && byte <= 172) || (byte >= 174 && byte <= 255);
}

struct Tables {
  std::array<std::string, 256> utf8_of_byte;
  std::array<char32_t, 256> char_of_byte;
  Tables() {
    char32_t next = 256;
    for (int byte = 0; byte < 256; ++byte) {
      char_of_byte[byte] = StandsForItself(byte) ? static_cast<char32_t>(byte) : next++;
      utf8::Append(char_of_byte[byte], &utf8_of_byte[byte]);
    }
  }
};

const Tables& GetTables() {
  static const Tables tables;
  return tables;
}

}  // namespace

std::string Encode(std::string_view bytes) {
  const Tables& tables = GetTables();
  std::string out;
  out.reserve(bytes.size() * 2);
  for (char byte : bytes) out += tables.utf8_of_byte[static_cast<unsigned char>(byte)];
  return out;
}

int ByteOf(char32_t c) {
  if (c < 256 && StandsForItself(static_cast<int>(c))) return static_cast<int>(c);
  const Tables& tables = GetTables();
  // The mapped characters are U+0100 .. U+0143, in byte order.
  if (c < 256 || c >= 256 + 68) return -1;
  for (int byte = 0; byte < 256; ++byte) {
    if (tables.char_of_byte[byte] == c) return byte;
  }
  return -1;
}

}  // namespace byte_level
}  // namespace pteforge
