// Transcriber: speech in, text out, with a Whisper program exported by pteforge.seq2seq
// (encode(input_features, rows) / decode_step(tokens, decoder_attention_mask) /
// reorder_cache over one cache) and nothing else: the program carries the tokenizer and
// the generation settings; the features are computed here (log_mel.h).
//
//   auto transcriber = Transcriber::Open("whisper.pte");
//   auto segments = transcriber.value()->TranscribeLongForm(samples, {});  // 16 kHz, in [-1, 1]
//   auto result = transcriber.value()->Transcribe(samples, {});
//
// Two ways to decode. TranscribeLongForm is faster-whisper's transcribe()
// (long_form.h): timestamps, segments, windows that start where the last segment
// ended, the previous text as the prompt, temperature fallback, on faster-whisper's
// features (LogMel::ComputeAll). Transcribe is transformers' generate() on each window:
// the audio is cut into consecutive windows of the encoder's length (30 s for Whisper's
// models), each transcribed on its own and the texts joined. Its decoder prompt is
// Whisper's: <|startoftranscript|>, the language token, the task token and
// <|notimestamps|> (the two first only when the tokenizer has them: English-only models
// have none), then generate()'s greedy or beam search with the model's settings
// (cc/generate/search.h). The model side (features in, ids out) is a WhisperModel
// (whisper_model.h); this adds the windows, the features and the text. Not thread-safe.
#ifndef PTEFORGE_CC_WHISPER_TRANSCRIBER_H_
#define PTEFORGE_CC_WHISPER_TRANSCRIBER_H_

#include <memory>
#include <string>
#include <vector>

#include "cc/runtime/session.h"
#include "cc/seq2seq/seq2seq_program.h"
#include "cc/text/hf_text_tokenizer.h"
#include "cc/whisper/log_mel.h"
#include "cc/whisper/long_form.h"
#include "cc/whisper/vad_filter.h"
#include "cc/whisper/whisper_model.h"
#include "cc/whisper/whisper_tokens.h"

namespace pteforge {

struct TranscribeOptions {
  std::string language = "en";      // the <|xx|> token
  std::string task = "transcribe";  // or "translate" (into English)
  int beams = 0;                    // 0: the model's num_beams
  int64_t max_length = 0;           // decoder positions per window, prompt included; 0: the model's
};

// faster-whisper's VAD filter: a Silero VAD program and get_speech_timestamps' options.
struct VadFilter {
  VadModel* model = nullptr;
  SegmentOptions options = FasterWhisperVadOptions();
};

struct LongFormTranscript {
  std::vector<TranscriptSegment> segments;
  double speech_seconds = 0;  // what Whisper heard: all of the audio, or the VAD's speech
};

struct Transcription {
  std::string text;
  std::vector<std::vector<int64_t>> ids;  // per window, after the prompt
  std::vector<int64_t> prompt;            // the decoder prompt, start token included
};

class Transcriber {
 public:
  static StatusOr<std::unique_ptr<Transcriber>> Open(const std::string& path, SessionOptions options = {});
  ~Transcriber();

  // Transcribes 16 kHz samples; an empty input gives an empty text.
  StatusOr<Transcription> Transcribe(const std::vector<float>& samples, const TranscribeOptions& options);

  // Transcribes 16 kHz samples as faster-whisper does; with `vad`, its VAD filter first
  // (vad_filter.h: Whisper hears only the speech, the times are the original audio's).
  // An empty input gives no segment.
  StatusOr<LongFormTranscript> TranscribeLongForm(const std::vector<float>& samples, const LongFormOptions& options,
                                                  const VadFilter* vad = nullptr);

  const Seq2SeqProgramInfo& info() const { return model_->info(); }
  int64_t window_samples() const { return log_mel_->options().window_samples; }
  int64_t sampling_rate() const { return log_mel_->options().sampling_rate; }

 private:
  Transcriber() = default;
  StatusOr<SearchOptions> Resolve(const TranscribeOptions& options) const;

  std::unique_ptr<WhisperModel> model_;
  std::unique_ptr<HfTextTokenizer> tokenizer_;
  std::unique_ptr<LogMel> log_mel_;
  StatusOr<WhisperTokens> tokens_ = Failure(Error::InvalidProgram, "not read");
};

}  // namespace pteforge

#endif  // PTEFORGE_CC_WHISPER_TRANSCRIBER_H_
