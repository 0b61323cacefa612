// The sampling and length flags of the generate tool, applied over a model's defaults:
// --greedy, --sample, --temperature (0: greedy), --top_k, --top_p,
// --repetition_penalty, --seed, --max_new_tokens.
#ifndef PTEFORGE_CC_LLM_GENERATE_FLAGS_H_
#define PTEFORGE_CC_LLM_GENERATE_FLAGS_H_

#include "cc/cli/flags.h"
#include "cc/llm/causal_lm.h"

namespace pteforge {

void DefineGenerateFlags(Flags* flags);

// `*options` (the model's defaults, CausalLm::Defaults) with the flags that are set;
// an InvalidArgument error for a malformed value, a sampling flag with greedy
// decoding, or a value out of range.
Status ApplyGenerateFlags(const Flags& flags, GenerateOptions* options);

}  // namespace pteforge

#endif  // PTEFORGE_CC_LLM_GENERATE_FLAGS_H_
