// Pre-tokenizers of tokenizer.json ("pre_tokenizer"): ByteLevel, Split, Metaspace,
// Digits, WhitespaceSplit and Sequence, as Hugging Face tokenizers applies them: each
// splits every piece of the current list further (empty pieces are dropped). Others
// (Whitespace, BertPreTokenizer, Punctuation, UnicodeScripts, CharDelimiterSplit) are an
// error naming the type.
//
// Immutable after construction; thread-safe.
#ifndef PTEFORGE_CC_TEXT_PRE_TOKENIZER_H_
#define PTEFORGE_CC_TEXT_PRE_TOKENIZER_H_

#include <memory>
#include <string>
#include <vector>

#include "cc/text/json.h"
#include "cc/runtime/status.h"

namespace pteforge {

struct PreToken {
  std::string text;  // valid UTF-8 (before ByteLevel maps it to its alphabet)
  // The piece begins at the start of the input text (Metaspace's prepend_scheme "first"
  // prepends only there).
  bool at_start = false;
};

class PreTokenizer {
 public:
  virtual ~PreTokenizer() = default;
  virtual Status PreTokenize(std::vector<PreToken>* pieces) const = 0;
};

StatusOr<std::unique_ptr<PreTokenizer>> MakePreTokenizer(const Json& config);

// The split behaviours of tokenizers' SplitDelimiterBehavior, applied to the matches of
// a pattern in `text` ([begin, end) byte offsets, in order, not overlapping; with
// `invert`, the matches and the text between them swap roles). Appends the resulting
// non-empty pieces to `out`.
enum class SplitBehavior { kRemoved, kIsolated, kMergedWithPrevious, kMergedWithNext, kContiguous };
void SplitByMatches(const PreToken& piece, const std::vector<std::pair<size_t, size_t>>& matches,
                    SplitBehavior behavior, bool invert, std::vector<PreToken>* out);

}  // namespace pteforge

#endif  // PTEFORGE_CC_TEXT_PRE_TOKENIZER_H_
