#include "cc/whisper/whisper_tokens.h"

namespace pteforge {

StatusOr<WhisperTokens> WhisperTokens::Read(const TextTokenizer& tokenizer, int64_t vocab_size,
                                            const std::string& what) {
  WhisperTokens tokens;
  tokens.vocab_size = vocab_size;
  tokens.multilingual = vocab_size >= 51865;
  struct Required {
    const char* text;
    int64_t* id;
  };
  for (const Required& required : {Required{"<|endoftext|>", &tokens.eot}, Required{"<|startoftranscript|>", &tokens.sot},
                                   Required{"<|startofprev|>", &tokens.sot_prev},
                                   Required{"<|notimestamps|>", &tokens.no_timestamps}}) {
    const auto id = tokenizer.TokenToId(required.text);
    if (!id.has_value()) {
      return Failure(Error::InvalidProgram, "%s: the tokenizer has no %s token: not a Whisper vocabulary", what.c_str(),
                     required.text);
    }
    *required.id = *id;
  }
  if (const auto id = tokenizer.TokenToId("<|nospeech|>")) {
    tokens.no_speech = *id;
  } else if (const auto old = tokenizer.TokenToId("<|nocaptions|>")) {
    tokens.no_speech = *old;
  }
  for (const Required& optional : {Required{"<|transcribe|>", &tokens.transcribe},
                                   Required{"<|translate|>", &tokens.translate},
                                   Required{"<|startoflm|>", &tokens.sot_lm}}) {
    if (const auto id = tokenizer.TokenToId(optional.text)) *optional.id = *id;
  }
  tokens.timestamp_begin = tokens.no_timestamps + 1;
  tokens.timestamp_end = vocab_size - 1;
  if (tokens.timestamp_begin > tokens.timestamp_end) {
    return Failure(Error::InvalidProgram, "%s: no timestamp tokens after <|notimestamps|> (%lld) in a vocabulary of %lld",
                   what.c_str(), static_cast<long long>(tokens.no_timestamps), static_cast<long long>(vocab_size));
  }
  return tokens;
}

}  // namespace pteforge
