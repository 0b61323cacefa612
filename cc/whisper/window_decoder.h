// One 30-s window decoded as faster-whisper has CTranslate2 decode it
// (WhisperModel.generate: src/models/whisper.cc and src/decoding.cc): the decoder
// prompt (the previous text after <|startofprev|>, then <|startoftranscript|> and, for
// multilingual models, the language and task), then beam search (temperature 0) or
// best-of-n sampling (a temperature above 0), with the logits processors in CTranslate2's
// order — the suppressed tokens at every step, the begin-suppressed ones (suppress_blank)
// at the first, Whisper's timestamp rules (timestamp_rules.h) — and the log-softmax taken
// after them, over the tokens still allowed. Also the no-speech probability: the
// probability of <|nospeech|> at <|startoftranscript|>'s position, over the whole
// vocabulary, before any processor.
//
// This differs from cc/generate/search.h, which reproduces transformers' generate():
// generate log-softmaxes before its processors and stops beam search when it cannot
// improve; CTranslate2 renormalizes after them and stops when patience x beams
// hypotheses have finished.
#ifndef PTEFORGE_CC_WHISPER_WINDOW_DECODER_H_
#define PTEFORGE_CC_WHISPER_WINDOW_DECODER_H_

#include <cstdint>
#include <vector>

#include "cc/generate/search.h"
#include "cc/runtime/status.h"
#include "cc/whisper/whisper_tokens.h"

namespace pteforge {

struct WindowDecodeOptions {
  int beam_size = 5;            // temperature 0: beam search; 1 = greedy
  double patience = 1.0;        // beam search ends when round(beam_size x patience) hypotheses have
  double length_penalty = 1.0;  // hypotheses rank by log-probability / length^length_penalty
  double temperature = 0.0;     // above 0: sampling, best_of hypotheses
  int best_of = 5;
  std::vector<int64_t> suppress_tokens;    // at every step
  std::vector<int64_t> suppress_at_begin;  // at the first step (faster-whisper's suppress_blank)
  int64_t max_initial_timestamp_index = 50;  // 1.0 s
  // Decoder positions, prompt included: at most half of them, and no more than what the
  // prompt leaves, are generated (CTranslate2's rule; faster-whisper passes 448).
  int64_t max_length = 448;
  uint64_t seed = 0;  // sampling's
};

struct WindowResult {
  std::vector<int64_t> tokens;  // after the prompt, without <|endoftext|>
  double cumulative_logprob = 0;  // <|endoftext|>'s included when the hypothesis ended with it
  double avg_logprob = 0;         // cumulative / (tokens + 1): faster-whisper's
  double no_speech_prob = 0;      // 0 when the vocabulary has no no-speech token
};

// Decodes one window: `model` holds the window's features (one source); `prompt` is the
// decoder prompt (<|startoftranscript|> in it; the timestamp rules apply unless it ends
// with <|notimestamps|>). `model` must have rows for beam_size (or best_of) rows and
// positions for max_length tokens.
StatusOr<WindowResult> DecodeWindow(Seq2SeqModel& model, const WhisperTokens& tokens,
                                    const std::vector<int64_t>& prompt, const WindowDecodeOptions& options);

}  // namespace pteforge

#endif  // PTEFORGE_CC_WHISPER_WINDOW_DECODER_H_
