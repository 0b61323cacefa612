// The tokens faster-whisper never lets Whisper generate by default (suppress_tokens=[-1]:
// faster_whisper/transcribe.py get_suppressed_tokens, tokenizer.py non_speech_tokens):
// symbols that start speaker tags and sound annotations ("[DAVID]", "(MUSIC)", "♪♪"),
// alone or after a space, " -" and " '" (allowed between words, not at a word's start),
// and the task and prompt tokens. Computed from the tokenizer, as faster-whisper does, not
// taken from the model's generation config (whose list is the same for OpenAI's models,
// but need not be).
#ifndef PTEFORGE_CC_WHISPER_SUPPRESSED_TOKENS_H_
#define PTEFORGE_CC_WHISPER_SUPPRESSED_TOKENS_H_

#include <cstdint>
#include <vector>

#include "cc/runtime/status.h"
#include "cc/text/hf_text_tokenizer.h"
#include "cc/whisper/whisper_tokens.h"

namespace pteforge {

// Ascending, without repeats.
StatusOr<std::vector<int64_t>> FasterWhisperSuppressedTokens(const HfTextTokenizer& tokenizer,
                                                             const WhisperTokens& tokens);

}  // namespace pteforge

#endif  // PTEFORGE_CC_WHISPER_SUPPRESSED_TOKENS_H_
