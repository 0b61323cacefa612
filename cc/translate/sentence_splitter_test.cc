// SplitSentences against what bergamot-translator 0.4.5 ("paragraph" mode, no prefix
// file: benchmarks/bergamot_translator_worker.py's settings) gave for the same texts,
// and Reassemble keeping the text's own spacing.
#include "cc/translate/sentence_splitter.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace pteforge {
namespace {

void ExpectSplit(const std::string& text, const std::vector<std::string>& sentences) {
  const SplitText split = SplitSentences(text);
  EXPECT_EQ(split.sentences, sentences) << text;
  // Putting the sentences themselves back gives the text (whitespace only: nothing).
  const bool blank = text.find_first_not_of(" \t\r\n") == std::string::npos;
  EXPECT_EQ(Reassemble(split, split.sentences), blank ? "" : text);
}

TEST(SentenceSplitter, EndsAfterPunctuationBeforeAnUppercaseLetterOrDigit) {
  ExpectSplit("Dr. Smith arrived at 3.5 p.m. yesterday. He said: \"Is it ready?\" Nobody answered!  Then, e.g. the "
              "cat left.",
              {"Dr.", "Smith arrived at 3.5 p.m. yesterday.", "He said: \"Is it ready?\"", "Nobody answered!",
               "Then, e.g. the cat left."});
  ExpectSplit("He said \"Go home.\" Then he left. (This is it.) Yes.",
              {"He said \"Go home.\"", "Then he left.", "(This is it.)", "Yes."});
  ExpectSplit("Is it 5? 6 is more. A.B.C. Corp is big. The U.S. Army won. I saw Mr. Bean.",
              {"Is it 5?", "6 is more.", "A.B.C.", "Corp is big.", "The U.S.", "Army won.", "I saw Mr.", "Bean."});
  ExpectSplit("Wait... What? Really?! Yes.", {"Wait...", "What?", "Really?!", "Yes."});
  ExpectSplit("Item 1. item two. Item 3.", {"Item 1. item two.", "Item 3."});
  ExpectSplit("one line without end", {"one line without end"});
}

TEST(SentenceSplitter, AccentedUppercaseStartsASentence) {
  ExpectSplit("Ele disse: \xC3\x89 verdade. \xC3\x93timo! \xC3\x82ngela veio.",
              {"Ele disse: \xC3\x89 verdade.", "\xC3\x93timo!", "\xC3\x82ngela veio."});
}

TEST(SentenceSplitter, LineBreaksEndSentencesAndStayInTheGaps) {
  ExpectSplit("The cat\nleft the house. It rained.", {"The cat", "left the house.", "It rained."});
  ExpectSplit("First para line one.\nLine two here.\n\nSecond para.  Two spaces.",
              {"First para line one.", "Line two here.", "Second para.", "Two spaces."});
  ExpectSplit("  Leading spaces. Trailing spaces.  ", {"Leading spaces.", "Trailing spaces."});
}

TEST(SentenceSplitter, WhitespaceHasNoSentences) {
  ExpectSplit("", {});
  ExpectSplit("   ", {});
  ExpectSplit("\n\n", {});
}

TEST(SentenceSplitter, TranslationsGoWhereTheSentencesWere) {
  const SplitText split = SplitSentences(" One. Two.\n\nThree.\n");
  EXPECT_EQ(Reassemble(split, {"Um.", "Dois.", "Tr\xC3\xAAs."}), " Um. Dois.\n\nTr\xC3\xAAs.\n");
}

}  // namespace
}  // namespace pteforge
