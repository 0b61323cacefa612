// Splits text into sentences the way bergamot-translator (Firefox's engine) does in its
// "paragraph" mode with no non-breaking-prefix file, which is how its own tooling runs
// these models, and keeps everything between the sentences so that the translation can
// be put back together with the text's own spacing and line breaks:
//   - a line break always ends a sentence;
//   - within a line, a candidate end is . ? or ! (repeated or mixed: "...", "?!"), then
//     any closing quotes, brackets or a footnote mark ("[12]"), then whitespace. After
//     skipping opening punctuation and whitespace, the sentence ends there unless the
//     next word starts with a lowercase letter as the engine judges it: by its first
//     byte read as Latin-1, so ASCII a-z and lead bytes 0xDF.. (CJK and most scripts
//     past Greek) continue the sentence, while "é", "ç" or "Ж" (lead bytes 0xC2..0xDE),
//     uppercase letters, digits, symbols ($, emoji) or nothing end it. So "e.g. the"
//     and "3.5" do not split, and "Dr. Smith" and "U.S. Army" do (no abbreviation
//     list, as the engine without one);
//   - whitespace, the no-break and other Unicode spaces included, goes between
//     sentences (those spaces end no sentence);
//   - text that is only whitespace has no sentences (and translates to nothing).
// Checked against bergamot-translator 0.4.5: the 1,300 paragraphs of the Bergamot corpus
// and 67 made-up texts split the same (cc/seq2seq/sentence_splitter_test.cc).
#ifndef PTEFORGE_CC_SEQ2SEQ_SENTENCE_SPLITTER_H_
#define PTEFORGE_CC_SEQ2SEQ_SENTENCE_SPLITTER_H_

#include <string>
#include <vector>

namespace pteforge {

struct SplitText {
  std::vector<std::string> sentences;
  // gaps[i] comes before sentences[i]; gaps.back() after the last sentence
  // (sentences.size() + 1 gaps). Empty when there are no sentences.
  std::vector<std::string> gaps;
};

SplitText SplitSentences(const std::string& text);

// gaps[0] + translations[0] + gaps[1] + ... + gaps.back(); "" when there are no
// sentences (as the engine answers whitespace).
std::string Reassemble(const SplitText& split, const std::vector<std::string>& translations);

}  // namespace pteforge

#endif  // PTEFORGE_CC_SEQ2SEQ_SENTENCE_SPLITTER_H_
