#include "cc/whisper/suppressed_tokens.h"

#include <set>
#include <string>

namespace pteforge {

StatusOr<std::vector<int64_t>> FasterWhisperSuppressedTokens(const HfTextTokenizer& tokenizer,
                                                             const WhisperTokens& tokens) {
  // tokenizer.py's lists, in its order: one-character symbols, then multi-character ones.
  const std::vector<std::string> symbols = {
      "\"", "#", "(", ")", "*", "+", "/", ":", ";", "<", "=", ">", "@", "[", "\\", "]", "^", "_", "`", "{", "|", "}",
      "~", "「", "」", "『", "』", "<<", ">>", "<<<", ">>>", "--", "---", "-(", "-[", "('", "(\"", "((", "))", "(((",
      ")))", "[[", "]]", "{{", "}}", "♪♪", "♪♪♪"};
  // U+2640..U+267F symbols: their first token is suppressed even when they take several
  // (their 3-byte UTF-8 forms share the first two bytes).
  const std::vector<std::string> miscellaneous = {"♩", "♪", "♫", "♬", "♭", "♮", "♯"};
  std::set<int64_t> result;
  for (const char* word_internal : {" -", " '"}) {
    auto ids = tokenizer.EncodeWithoutSpecialTokens(word_internal);
    if (!ids.ok()) return ids.status();
    if (!ids->empty()) result.insert(ids->front());
  }
  for (const auto* list : {&symbols, &miscellaneous}) {
    const bool always_first = list == &miscellaneous;
    for (const std::string& symbol : *list) {
      for (const std::string& text : {symbol, " " + symbol}) {
        auto ids = tokenizer.EncodeWithoutSpecialTokens(text);
        if (!ids.ok()) return ids.status();
        if (!ids->empty() && (ids->size() == 1 || always_first)) result.insert(ids->front());
      }
    }
  }
  for (int64_t special : {tokens.transcribe, tokens.translate, tokens.sot, tokens.sot_prev, tokens.sot_lm,
                          tokens.no_speech}) {
    if (special >= 0) result.insert(special);
  }
  return std::vector<int64_t>(result.begin(), result.end());
}

}  // namespace pteforge
