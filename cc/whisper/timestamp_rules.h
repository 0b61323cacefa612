// Whisper's timestamp rules on one row of next-token logits: the logits processor that
// makes a transcription with timestamps well formed, as CTranslate2 applies it for
// faster-whisper (src/models/whisper.cc, ApplyTimestampRules) and openai-whisper's
// decoding.py does (ApplyTimestampRules). Disallowed tokens get -inf.
//
// - <|notimestamps|> is never generated;
// - the first token is a timestamp of at most max_initial_timestamp_index (1.0 s by
//   default);
// - timestamps come in pairs (the end of a segment, then the start of the next), except
//   the last before <|endoftext|>: after a pair only text or the end; after a single
//   timestamp that follows text, only a timestamp at least as late, or the end;
// - timestamps never go back: after text, only timestamps later than the latest;
// - when the timestamps together are more likely than any single text token, a
//   timestamp it is.
#ifndef PTEFORGE_CC_WHISPER_TIMESTAMP_RULES_H_
#define PTEFORGE_CC_WHISPER_TIMESTAMP_RULES_H_

#include <cstdint>
#include <vector>

#include "cc/whisper/whisper_tokens.h"

namespace pteforge {

// `logits`: the row's vocab_size scores, other processors' -inf already in place (the
// probability rule compares what is still allowed); `generated`: the row's tokens after
// the decoder prompt.
void ApplyTimestampRules(const WhisperTokens& tokens, const std::vector<int64_t>& generated,
                         int64_t max_initial_timestamp_index, float* logits);

}  // namespace pteforge

#endif  // PTEFORGE_CC_WHISPER_TIMESTAMP_RULES_H_
