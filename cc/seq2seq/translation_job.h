// TranslationJob: the translate tool's work between reading and printing. Inputs are
// sentences (one per line or argument), paragraphs (split into sentences as
// bergamot-translator does, sentence_splitter.h, and put back together with their own
// spacing), or one document; each input's translation is printed as soon as its block is
// done, so memory stays bounded on an input of any length and output comes as it is
// made. A sentence that cannot be translated gets a message on `err` naming where it is
// and an empty line in its place (a document: no output at all).
#ifndef PTEFORGE_CC_SEQ2SEQ_TRANSLATION_JOB_H_
#define PTEFORGE_CC_SEQ2SEQ_TRANSLATION_JOB_H_

#include <cstdio>
#include <istream>
#include <string>
#include <vector>

#include "cc/seq2seq/sentence_splitter.h"
#include "cc/seq2seq/translator_pool.h"

namespace pteforge {

struct TranslationJobOptions {
  enum class Input { kSentences, kParagraphs, kDocument };
  Input input = Input::kSentences;
  // One sentence at a time on the first translator, each timed: a JSON line per
  // sentence on `err` ("ms" is the whole call, text in to text out). Sentences only.
  bool stats = false;
  bool print_ids = false;  // the source and generated ids under each translation (sentences only)
  bool from_stdin = false;  // messages say "line N" (else "argument N")
  std::string program = "translate";  // starts each message
};

class TranslationJob {
 public:
  // `pool` must outlive the job. Translations go to `out`, messages to `err`.
  TranslationJob(TranslatorPool* pool, TranslateOptions translate, TranslationJobOptions options, std::FILE* out,
                 std::FILE* err);

  // Translates and prints `inputs`; `first` inputs came before them (for the line and
  // argument numbers in messages). Returns how many sentences could not be translated;
  // an error only when the model itself fails.
  StatusOr<int> Run(const std::vector<std::string>& inputs, size_t first = 0);
  // Every line of `in`, in blocks of kBlockLines: each block translated (sorted by
  // length inside it, as one input would be) and printed before the next is read.
  StatusOr<int> RunLines(std::istream& in);
  // All of `in` as one document.
  StatusOr<int> RunDocument(std::istream& in);

  static constexpr size_t kBlockLines = 4096;

  // Totals of the job so far (translate --summary).
  double translate_ms() const { return translate_ms_; }
  size_t sentences() const { return sentences_; }

 private:
  StatusOr<std::vector<StatusOr<Translation>>> TranslateTimingEach(const std::vector<std::string>& texts);
  std::string Where(size_t i) const;
  int PrintSplit(const std::vector<std::string>& inputs, const std::vector<SplitText>& splits,
                 const std::vector<StatusOr<Translation>>& results, size_t first);
  int PrintSentences(const std::vector<StatusOr<Translation>>& results, size_t first);

  TranslatorPool* pool_;
  TranslateOptions translate_;
  TranslationJobOptions options_;
  std::FILE* out_;
  std::FILE* err_;
  double translate_ms_ = 0;
  size_t sentences_ = 0;
};

}  // namespace pteforge

#endif  // PTEFORGE_CC_SEQ2SEQ_TRANSLATION_JOB_H_
