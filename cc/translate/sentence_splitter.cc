#include "cc/translate/sentence_splitter.h"

#include <cstdint>

namespace pteforge {
namespace {

// The code point starting at `text[i]` (UTF-8) and its length in bytes; invalid bytes
// count as one byte each, code point 0xFFFD.
uint32_t CodePoint(const std::string& text, size_t i, size_t* length) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char first = byte(i);
  size_t n = first < 0x80 ? 1 : (first >> 5) == 0x6 ? 2 : (first >> 4) == 0xE ? 3 : (first >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + n > text.size()) {
    *length = 1;
    return 0xFFFD;
  }
  uint32_t cp = n == 1 ? first : first & (0xFF >> (n + 1));
  for (size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) {
      *length = 1;
      return 0xFFFD;
    }
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  *length = n;
  return cp;
}

// Uppercase letters of Basic Latin, Latin-1, Latin Extended-A, Greek and Cyrillic: the
// scripts of the languages these models translate (other scripts never start a
// sentence here, a documented limit).
bool IsUpper(uint32_t cp) {
  if (cp >= 'A' && cp <= 'Z') return true;
  if (cp >= 0xC0 && cp <= 0xDE) return cp != 0xD7;  // not the multiplication sign
  if (cp >= 0x100 && cp <= 0x137) return cp % 2 == 0;  // pairs: uppercase first
  if (cp >= 0x139 && cp <= 0x148) return cp % 2 == 1;
  if (cp >= 0x14A && cp <= 0x177) return cp % 2 == 0;
  if (cp >= 0x178 && cp <= 0x17E) return cp == 0x178 || cp % 2 == 1;
  if (cp >= 0x391 && cp <= 0x3AB) return cp != 0x3A2;
  return cp >= 0x400 && cp <= 0x42F;
}

bool IsDigit(uint32_t cp) { return cp >= '0' && cp <= '9'; }
bool IsEnd(uint32_t cp) { return cp == '.' || cp == '?' || cp == '!'; }
bool IsClosing(uint32_t cp) {
  return cp == '"' || cp == '\'' || cp == ')' || cp == ']' || cp == 0xBB || cp == 0x201D || cp == 0x2019;
}
bool IsOpening(uint32_t cp) {
  return cp == '"' || cp == '\'' || cp == '(' || cp == '[' || cp == 0xBF || cp == 0xA1 || cp == 0xAB ||
         cp == 0x201C || cp == 0x2018;
}
bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

// Where the sentence that starts at `begin` ends within [begin, end): the byte after
// its last character, or `end`.
size_t SentenceEnd(const std::string& text, size_t begin, size_t end) {
  size_t i = begin;
  while (i < end) {
    size_t length;
    if (!IsEnd(CodePoint(text, i, &length))) {
      i += length;
      continue;
    }
    size_t after = i + length;
    while (after < end && IsEnd(CodePoint(text, after, &length))) after += length;
    while (after < end && IsClosing(CodePoint(text, after, &length))) after += length;
    size_t next = after;
    while (next < end && IsSpace(text[next])) ++next;
    if (next == after || next == end) {
      i = after;
      continue;
    }
    size_t start = next;
    while (start < end && IsOpening(CodePoint(text, start, &length))) start += length;
    if (start < end) {
      const uint32_t cp = CodePoint(text, start, &length);
      if (IsUpper(cp) || IsDigit(cp)) return after;
    }
    i = after;
  }
  return end;
}

}  // namespace

SplitText SplitSentences(const std::string& text) {
  SplitText split;
  std::string gap;
  size_t line = 0;
  while (line <= text.size()) {
    size_t line_end = text.find('\n', line);
    if (line_end == std::string::npos) line_end = text.size();
    size_t i = line;
    while (true) {
      while (i < line_end && IsSpace(text[i])) gap += text[i++];
      if (i == line_end) break;
      const size_t sentence_end = SentenceEnd(text, i, line_end);
      size_t trimmed = sentence_end;
      while (trimmed > i && IsSpace(text[trimmed - 1])) --trimmed;
      split.gaps.push_back(gap);
      split.sentences.push_back(text.substr(i, trimmed - i));
      gap = text.substr(trimmed, sentence_end - trimmed);
      i = sentence_end;
    }
    if (line_end == text.size()) break;
    gap += '\n';
    line = line_end + 1;
  }
  if (split.sentences.empty()) {
    split.gaps.clear();
  } else {
    split.gaps.push_back(gap);
  }
  return split;
}

std::string Reassemble(const SplitText& split, const std::vector<std::string>& translations) {
  std::string out;
  if (split.sentences.empty()) return out;
  for (size_t i = 0; i < split.sentences.size(); ++i) {
    out += split.gaps[i];
    out += i < translations.size() ? translations[i] : "";
  }
  return out + split.gaps.back();
}

}  // namespace pteforge
