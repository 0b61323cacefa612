// WhisperTokens: the special token ids Whisper's decoding rules use, read from the
// program's tokenizer (every Whisper vocabulary spells them the same way).
//
// The timestamps are the ids after <|notimestamps|> up to the end of the model's
// vocabulary (<|0.00|> ... <|30.00|>, 0.02 s apart), as openai-whisper and CTranslate2
// count them; the no-speech token is <|nospeech|>, or <|nocaptions|> in the older
// vocabularies (tiny.en's).
#ifndef PTEFORGE_CC_WHISPER_WHISPER_TOKENS_H_
#define PTEFORGE_CC_WHISPER_WHISPER_TOKENS_H_

#include <cstdint>
#include <string>

#include "cc/runtime/status.h"
#include "cc/text/text_tokenizer.h"

namespace pteforge {

struct WhisperTokens {
  int64_t eot = 0;            // <|endoftext|>
  int64_t sot = 0;            // <|startoftranscript|>
  int64_t sot_prev = 0;       // <|startofprev|>: the previous text's prompt starts with it
  int64_t no_timestamps = 0;  // <|notimestamps|>
  int64_t no_speech = -1;     // <|nospeech|> or <|nocaptions|>; -1: neither
  int64_t transcribe = -1;    // <|transcribe|>, <|translate|>, <|startoflm|>: -1 if absent
  int64_t translate = -1;
  int64_t sot_lm = -1;
  int64_t timestamp_begin = 0;  // <|0.00|>
  int64_t timestamp_end = 0;    // the last timestamp: the vocabulary's last id
  int64_t vocab_size = 0;
  // openai-whisper's rule (model.is_multilingual): the multilingual vocabularies have
  // 51865 tokens or more; English-only models take no language and task tokens.
  bool multilingual = false;

  static StatusOr<WhisperTokens> Read(const TextTokenizer& tokenizer, int64_t vocab_size, const std::string& what);

  bool IsTimestamp(int64_t id) const { return id >= timestamp_begin; }
  // Seconds of a timestamp token.
  double Seconds(int64_t id) const { return static_cast<double>(id - timestamp_begin) * 0.02; }
};

}  // namespace pteforge

#endif  // PTEFORGE_CC_WHISPER_WHISPER_TOKENS_H_
