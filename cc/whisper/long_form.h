// Long-form transcription as faster-whisper's WhisperModel.transcribe() does it
// (faster_whisper/transcribe.py, generate_segments): 30-s windows cut from one log-mel
// spectrogram of the whole file, each decoded with the text before it as the prompt
// (condition_on_previous_text, at most 223 tokens), the timestamps in the tokens
// splitting it into segments, and the next window starting at the last complete
// segment's end; a window whose decode looks wrong (too repetitive, or too improbable)
// is decoded again at the next temperature; a window judged silent is skipped.
//
//   LongForm long_form(model, tokenizer, tokens);
//   auto segments = long_form.Run(windows, content_frames, LongFormOptions{});
//
// The defaults are faster-whisper's transcribe() defaults. The features come from the
// caller (`WindowFeatures`): the window of `size` frames at frame `seek`, padded to
// the encoder's window.
#ifndef PTEFORGE_CC_WHISPER_LONG_FORM_H_
#define PTEFORGE_CC_WHISPER_LONG_FORM_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cc/runtime/status.h"
#include "cc/text/hf_text_tokenizer.h"
#include "cc/whisper/transcript_segment.h"
#include "cc/whisper/whisper_model.h"
#include "cc/whisper/whisper_tokens.h"
#include "cc/whisper/word_timing.h"

namespace pteforge {

struct LongFormOptions {
  std::string language = "en";      // multilingual models: the <|xx|> token
  std::string task = "transcribe";  // or translate; multilingual models
  int beam_size = 5;
  int best_of = 5;
  double patience = 1.0;
  double length_penalty = 1.0;
  std::vector<double> temperatures = {0.0, 0.2, 0.4, 0.6, 0.8, 1.0};
  std::optional<double> compression_ratio_threshold = 2.4;
  std::optional<double> log_prob_threshold = -1.0;
  std::optional<double> no_speech_threshold = 0.6;
  bool condition_on_previous_text = true;
  double prompt_reset_on_temperature = 0.5;
  std::string initial_prompt;      // text before the first window, as if said before
  bool without_timestamps = false;
  double max_initial_timestamp = 1.0;  // s
  bool suppress_blank = true;          // no blank or <|endoftext|> as the first token
  uint64_t seed = 0;                   // the sampling of temperatures above 0
  // Each segment's words with their times (word_timing.h; the program's align method),
  // which also move where the next window starts, as in faster-whisper.
  bool word_timestamps = false;
  std::string prepend_punctuations = std::string(kPrependPunctuations);  // joined to the next word
  std::string append_punctuations = std::string(kAppendPunctuations);    // joined to the previous one
};

// The features of one window: frames [seek, seek + size) of the file's log-mel,
// zero-padded to the encoder's window ([n_mels, frames] row-major).
using WindowFeatures = std::function<std::vector<float>(int64_t seek, int64_t size)>;

class LongForm {
 public:
  // All three must outlive this object.
  LongForm(WhisperModel& model, const HfTextTokenizer& tokenizer, const WhisperTokens& tokens)
      : model_(model), tokenizer_(tokenizer), tokens_(tokens) {}

  // Transcribes `content_frames` frames (100 a second).
  StatusOr<std::vector<TranscriptSegment>> Run(const WindowFeatures& windows, int64_t content_frames,
                                               const LongFormOptions& options);

 private:
  struct Decoded;
  StatusOr<std::vector<int64_t>> StartSequence(const LongFormOptions& options) const;
  StatusOr<Decoded> DecodeWithFallback(const std::vector<float>& features, const std::vector<int64_t>& prompt,
                                       const std::vector<int64_t>& suppressed, const LongFormOptions& options);
  StatusOr<std::string> Text(const std::vector<int64_t>& tokens) const;
  // add_word_timestamps for one window's segments over its `num_frames` frames, the
  // window still encoded in the program; updates `last_speech_timestamp`.
  Status AddWords(const std::vector<int64_t>& start_sequence, int64_t num_frames, const LongFormOptions& options,
                  double* last_speech_timestamp, std::vector<TranscriptSegment>* segments) const;

  WhisperModel& model_;
  const HfTextTokenizer& tokenizer_;
  const WhisperTokens& tokens_;
};

}  // namespace pteforge

#endif  // PTEFORGE_CC_WHISPER_LONG_FORM_H_
