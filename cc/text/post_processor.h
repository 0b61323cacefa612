// Post-processors of tokenizer.json ("post_processor") for a single sequence:
// TemplateProcessing (e.g. "<|begin_of_text|> $A"), BertProcessing and
// RobertaProcessing ([CLS] $A [SEP]), ByteLevel (nothing to do for ids) and Sequence.
// Pair templates are not used (Encode takes one text).
//
// Immutable after construction; thread-safe.
#ifndef PTEFORGE_CC_TEXT_POST_PROCESSOR_H_
#define PTEFORGE_CC_TEXT_POST_PROCESSOR_H_

#include <cstdint>
#include <vector>

#include "cc/text/json.h"
#include "cc/runtime/status.h"

namespace pteforge {

// The special-token ids that go around the sequence's ids.
struct SpecialTokenFrame {
  std::vector<int64_t> before;
  std::vector<int64_t> after;
};

// The frame `config` describes; null config (no post-processor) gives an empty frame.
StatusOr<SpecialTokenFrame> MakePostProcessor(const Json* config);

}  // namespace pteforge

#endif  // PTEFORGE_CC_TEXT_POST_PROCESSOR_H_
