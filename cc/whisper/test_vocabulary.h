// The small vocabulary the Whisper decoding tests share: text tokens 0 and 1,
// <|endoftext|> 2, <|startoftranscript|> 3, <|startofprev|> 4, <|nocaptions|> 5,
// <|notimestamps|> 6, timestamps 7 (0.00 s) to 12.
#ifndef PTEFORGE_CC_WHISPER_TEST_VOCABULARY_H_
#define PTEFORGE_CC_WHISPER_TEST_VOCABULARY_H_

#include "cc/whisper/whisper_tokens.h"

namespace pteforge {

inline WhisperTokens TestVocabulary() {
  WhisperTokens t;
  t.eot = 2, t.sot = 3, t.sot_prev = 4, t.no_speech = 5, t.no_timestamps = 6;
  t.timestamp_begin = 7, t.timestamp_end = 12, t.vocab_size = 13;
  return t;
}

}  // namespace pteforge

#endif  // PTEFORGE_CC_WHISPER_TEST_VOCABULARY_H_
