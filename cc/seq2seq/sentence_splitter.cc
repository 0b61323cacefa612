#include "cc/seq2seq/sentence_splitter.h"

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

// What the engine's splitter (ssplit, inside bergamot-translator) decides on, in its
// terms. It finds a candidate end: . ? or ! (one or more), closing matter (quotes,
// brackets, final punctuation, a footnote such as "[12]"), whitespace. Then, looking
// ahead past any opening punctuation and more whitespace, it takes the run of letters,
// marks and digits that follows, and ends the sentence there unless that run starts
// with a lowercase letter. Its lowercase test reads the run's first *byte* as a Latin-1
// character (the pattern is compiled without UTF mode), so "a".."z" and the lead bytes
// 0xDF..0xFF (letters of most scripts past Latin-1 and Greek, CJK among them) count as
// lowercase, while accented letters of U+0080..U+07BF (first byte 0xC2..0xDE: é, ç, Ж)
// start a sentence whatever their case. A symbol ($, emoji, arrows) or nothing after the
// opening punctuation ends the sentence too.

bool IsAsciiSpace(uint32_t cp) { return cp == ' ' || (cp >= '\t' && cp <= '\r'); }
bool IsAsciiSpaceAt(const std::string& text, size_t k) { return IsAsciiSpace(static_cast<unsigned char>(text[k])); }
bool IsDigitAt(const std::string& text, size_t k) { return text[k] >= '0' && text[k] <= '9'; }
// Unicode space separators (Zs) other than the ASCII space.
bool IsSpaceSeparator(uint32_t cp) {
  return cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}
bool IsEnd(uint32_t cp) { return cp == '.' || cp == '?' || cp == '!'; }

// Final punctuation (Pf) and the closing quotes and brackets ssplit lists with it.
bool IsClosing(uint32_t cp) {
  switch (cp) {
    case '"': case '\'': case ')': case ']': case 0xBB: case 0x2019: case 0x201D: case 0x203A:
    case 0x2E03: case 0x2E05: case 0x2E0A: case 0x2E0D: case 0x2E1D: case 0x2E21:
      return true;
    default:
      return false;
  }
}

// Symbols (Unicode S*) in the ranges text uses: ASCII, Latin-1, currency, letterlike,
// arrows to dingbats and supplemental symbols, fullwidth signs and the emoji planes.
bool IsSymbol(uint32_t cp) {
  if (cp < 0x80) return cp == '$' || cp == '+' || cp == '<' || cp == '=' || cp == '>' || cp == '^' || cp == '`' ||
                        cp == '|' || cp == '~';
  if (cp < 0x100) {
    return (cp >= 0xA2 && cp <= 0xA6) || cp == 0xA8 || cp == 0xA9 || cp == 0xAC || (cp >= 0xAE && cp <= 0xB1) ||
           cp == 0xB4 || cp == 0xB8 || cp == 0xD7 || cp == 0xF7;
  }
  if (cp == 0x2044 || cp == 0x2052) return true;
  if (cp >= 0x20A0 && cp <= 0x20CF) return true;  // currency
  if (cp >= 0x2100 && cp <= 0x214F) {  // letterlike: letters (ℓ, Ω, K, Å, ...) and symbols (℃, №, ™, ...)
    static const uint16_t kLetters[][2] = {{0x2102, 0x2102}, {0x2107, 0x2107}, {0x210A, 0x2113}, {0x2115, 0x2115},
                                           {0x2119, 0x211D}, {0x2124, 0x2124}, {0x2126, 0x2126}, {0x2128, 0x2128},
                                           {0x212A, 0x212D}, {0x212F, 0x2139}, {0x213C, 0x213F}, {0x2145, 0x2149},
                                           {0x214E, 0x214E}};
    for (const auto& range : kLetters) {
      if (cp >= range[0] && cp <= range[1]) return false;
    }
    return true;
  }
  if (cp >= 0x2190 && cp <= 0x2BFF) {  // arrows, math, technical, shapes, dingbats
    if ((cp >= 0x2460 && cp <= 0x249B) || (cp >= 0x24EA && cp <= 0x24FF) || (cp >= 0x2776 && cp <= 0x2793)) {
      return false;  // enclosed and dingbat numbers
    }
    return true;
  }
  if (cp >= 0xFFE0 && cp <= 0xFFEE) return cp != 0xFFE7;  // fullwidth currency and signs
  if (cp >= 0x1F000 && cp <= 0x1FAFF) return !(cp >= 0x1F100 && cp <= 0x1F10C);  // emoji, not enclosed digits
  return false;
}

// Punctuation, other separators and control characters: what ssplit skips before the
// run it judges ([^\s\p{L}\p{N}\p{M}\p{S}]), in ASCII, Latin-1, General and
// Supplemental Punctuation, CJK punctuation and the fullwidth forms.
bool IsInitialPunctuation(uint32_t cp) {
  if (IsAsciiSpace(cp) || IsSymbol(cp)) return false;
  if (cp < 0x80) return !((cp >= '0' && cp <= '9') || (cp >= 'A' && cp <= 'Z') || (cp >= 'a' && cp <= 'z'));
  if (cp < 0x100) return cp < 0xA0 || cp == 0xA0 || cp == 0xA1 || cp == 0xA7 || cp == 0xAB || cp == 0xAD ||
                         cp == 0xB6 || cp == 0xB7 || cp == 0xBB || cp == 0xBF;
  if (cp >= 0x2000 && cp <= 0x206F) return true;
  if (cp >= 0x2E00 && cp <= 0x2E7F) return cp != 0x2E2F && cp != 0x2E50 && cp != 0x2E51;
  if (cp >= 0x3000 && cp <= 0x303F) {
    return cp <= 0x3003 || (cp >= 0x3008 && cp <= 0x3011) || (cp >= 0x3014 && cp <= 0x301F) || cp == 0x3030 ||
           cp == 0x303D;
  }
  if (cp >= 0xFF01 && cp <= 0xFF65) {
    const bool letter_or_digit = (cp >= 0xFF10 && cp <= 0xFF19) || (cp >= 0xFF21 && cp <= 0xFF3A) ||
                                 (cp >= 0xFF41 && cp <= 0xFF5A);
    const bool symbol = cp == 0xFF04 || cp == 0xFF0B || (cp >= 0xFF1C && cp <= 0xFF1E) || cp == 0xFF3E ||
                        cp == 0xFF40 || cp == 0xFF5C || cp == 0xFF5E;
    return !letter_or_digit && !symbol;
  }
  return false;
}

// A footnote mark after the punctuation: "[" digits (with commas and spaces) "]".
size_t FootnoteEnd(const std::string& text, size_t i, size_t end) {
  if (i + 2 >= end || text[i] != '[' || !IsDigitAt(text, i + 1)) return i;
  size_t k = i + 1;
  while (k < end && (IsDigitAt(text, k) || text[k] == ',' || IsAsciiSpaceAt(text, k))) ++k;
  if (k < end && text[k] == ']' && IsDigitAt(text, k - 1)) return k + 1;
  return i;
}

// Where the sentence that starts at `begin` ends within [begin, end): the byte after
// its last character, or `end`.
size_t SentenceEnd(const std::string& text, size_t begin, size_t end) {
  size_t length;
  const auto at = [&](size_t k) { return CodePoint(text, k, &length); };
  size_t i = begin;
  while (i < end) {
    if (!IsEnd(at(i))) {
      i += length;
      continue;
    }
    const size_t punct = i;
    size_t after = i;
    while (after < end && IsEnd(at(after))) after += length;
    const size_t punct_end = after;
    while (after < end && IsClosing(at(after))) after += length;
    after = FootnoteEnd(text, after, end);
    while (after < end && IsClosing(at(after))) after += length;
    size_t next = after;
    while (next < end && IsAsciiSpaceAt(text, next)) ++next;
    if (next == after) {  // no whitespace: "3.5", "a.b"
      i = after;
      continue;
    }
    while (next < end && IsInitialPunctuation(at(next))) next += length;
    while (next < end && IsAsciiSpaceAt(text, next)) ++next;
    // `next` is past all whitespace here: a symbol, more punctuation, the run of
    // letters and digits, or nothing follows.
    const uint32_t cp = next < end ? at(next) : 0;
    const bool run = next < end && !IsSymbol(cp) && !IsInitialPunctuation(cp);
    const unsigned char first = next < end ? static_cast<unsigned char>(text[next]) : 0;
    const bool lowercase = run && ((first >= 'a' && first <= 'z') || first >= 0xDF);
    // ssplit's one exception when no letter or digit follows: "[...]".
    const bool bracketed_ellipsis = !run && punct_end - punct == 3 && text.compare(punct, 3, "...") == 0 &&
                                    punct > begin && text[punct - 1] == '[' &&
                                    text.compare(punct_end, after - punct_end, "]") == 0;
    if (!lowercase && !bracketed_ellipsis) return after;
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
      // A sentence starts after any whitespace, the no-break and other Unicode spaces
      // included (as the engine trims them; they end no sentence, though).
      size_t length;
      while (i < line_end) {
        const uint32_t cp = CodePoint(text, i, &length);
        if (!IsAsciiSpace(cp) && !IsSpaceSeparator(cp)) break;
        gap.append(text, i, length);
        i += length;
      }
      if (i == line_end) break;
      const size_t sentence_end = SentenceEnd(text, i, line_end);
      size_t trimmed = sentence_end;
      while (trimmed > i && IsAsciiSpaceAt(text, trimmed - 1)) --trimmed;
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
