// WhisperModel: the model side of a Whisper program exported by pteforge.seq2seq
// (encode(input_features, rows) / decode_step(tokens, decoder_attention_mask) /
// reorder_cache over one cache), without its tokenizer: log-mel features in, token ids
// out, with the program's generation settings (cc/generate/search.h). Everything here
// also runs on a microcontroller (cc/embedded/transcribe_image.cc); Transcriber
// (transcriber.h) adds the audio front end's windows and the text. Not thread-safe.
#ifndef PTEFORGE_CC_WHISPER_WHISPER_MODEL_H_
#define PTEFORGE_CC_WHISPER_WHISPER_MODEL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cc/generate/search.h"
#include "cc/runtime/session.h"
#include "cc/seq2seq/seq2seq_program.h"
#include "cc/seq2seq/translate_stats.h"
#include "cc/whisper/log_mel.h"

namespace pteforge {

class WhisperModel {
 public:
  // Refuses a program that is not a pteforge.seq2seq Whisper one; `what` names it.
  static StatusOr<std::unique_ptr<WhisperModel>> Create(std::unique_ptr<Session> session, const std::string& what);

  const Seq2SeqProgramInfo& info() const { return info_; }
  Session& session() { return *session_; }
  // The features encode takes: Whisper's front end with the program's mel bins and
  // window (its encoder's 2 x max_source_positions frames).
  const LogMelOptions& log_mel_options() const { return log_mel_; }

  // Searches `count` windows' features ([count, n_mels, frames] row-major) with
  // `search` (its prompt_tokens fed after the start token); per window, the ids
  // generated after the prompt. count x beams must fit the program's rows, and count
  // its sources.
  StatusOr<std::vector<std::vector<int64_t>>> Generate(const std::vector<float>& features, int64_t count,
                                                       const SearchOptions& search);
  // The program as a Seq2SeqModel over `count` windows' features, for searches of
  // their own (window_decoder.h); its times count in stats() when it goes. The
  // WhisperModel must outlive it, and only one may run at a time: it encodes its
  // features once for the same rows, however many searches run over them.
  StatusOr<std::unique_ptr<Seq2SeqModel>> Windows(const std::vector<float>& features, int64_t count,
                                                  int64_t pad_token);
  // Word timing (the program's align method; programs exported before 2026-11-28 have
  // none): teacher-forces `tokens` (start tokens, <|notimestamps|>, a window's text,
  // <|endoftext|>) on row 0 over the window last encoded for it, and returns the
  // alignment heads' scaled cross-attention scores and each next token's probability
  // among the text tokens. Overwrites row 0's self-attention cache (a search rewrites
  // it before reading).
  struct AlignmentScores {
    int64_t heads = 0, tokens = 0, frames = 0;
    std::vector<float> scores;            // [heads, tokens, frames], before the softmax
    std::vector<float> next_token_probs;  // [tokens - 1]: of tokens[p + 1] after p
  };
  bool CanAlign() const { return max_align_tokens_ > 0; }
  // The longest sequence Align takes (0: no align method).
  int64_t max_align_tokens() const { return max_align_tokens_; }
  StatusOr<AlignmentScores> Align(const std::vector<int64_t>& tokens);
  // Time in encode and in decode steps since the model was created.
  const TranslateStats& stats() const { return stats_; }

 private:
  WhisperModel() = default;

  std::unique_ptr<Session> session_;
  Seq2SeqProgramInfo info_;
  LogMelOptions log_mel_;
  TranslateStats stats_;
  int64_t max_align_tokens_ = 0;
};

}  // namespace pteforge

#endif  // PTEFORGE_CC_WHISPER_WHISPER_MODEL_H_
