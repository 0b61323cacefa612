#include "cc/whisper/transcriber.h"

#include <algorithm>

#include "cc/generate/search.h"

namespace pteforge {

Transcriber::~Transcriber() = default;

StatusOr<std::unique_ptr<Transcriber>> Transcriber::Open(const std::string& path, SessionOptions options) {
  auto session = Session::Open(path, options);
  if (!session.ok()) return session.status();
  const std::string what = "'" + path + "'";
  auto model = WhisperModel::Create(std::move(session.value()), what);
  if (!model.ok()) return model.status();
  std::unique_ptr<Transcriber> transcriber(new Transcriber());
  transcriber->model_ = std::move(model.value());
  auto tokenizer = HfTextTokenizer::FromProgram(transcriber->model_->session(), what);
  if (!tokenizer.ok()) return tokenizer.status();
  transcriber->tokenizer_ = std::move(tokenizer.value());
  transcriber->log_mel_ = std::make_unique<LogMel>(transcriber->model_->log_mel_options());
  // Only long-form transcription needs the special tokens: a program without them still
  // transcribes window by window.
  transcriber->tokens_ =
      WhisperTokens::Read(*transcriber->tokenizer_, transcriber->model_->info().vocab_size, what);
  return transcriber;
}

StatusOr<SearchOptions> Transcriber::Resolve(const TranscribeOptions& options) const {
  SearchOptions search = info().defaults;
  if (options.beams > 0) search.beams = options.beams;
  if (options.max_length > 0) search.max_length = options.max_length;
  PTEFORGE_RETURN_IF_ERROR(CheckFits(search, info().max_rows, info().max_target_length));
  if (options.task != "transcribe" && options.task != "translate") {
    return Failure(Error::InvalidArgument, "task '%s': expected transcribe or translate", options.task.c_str());
  }
  // Whisper's prompt: multilingual models name the language and the task; English-only
  // ones have neither token.
  const auto language = tokenizer_->TokenToId("<|" + options.language + "|>");
  const auto task = tokenizer_->TokenToId("<|" + options.task + "|>");
  if (language.has_value() != task.has_value()) {
    return Failure(Error::InvalidArgument, "the model's tokenizer has no %s token",
                   (language ? "<|" + options.task + "|>" : "<|" + options.language + "|>").c_str());
  }
  search.prompt_tokens.clear();
  if (language) search.prompt_tokens = {*language, *task};
  if (const auto no_timestamps = tokenizer_->TokenToId("<|notimestamps|>")) {
    search.prompt_tokens.push_back(*no_timestamps);
  }
  if (search.max_length <= 1 + static_cast<int64_t>(search.prompt_tokens.size())) {
    return Failure(Error::InvalidArgument, "max_length %lld leaves no room after the %zu-token decoder prompt",
                   static_cast<long long>(search.max_length), search.prompt_tokens.size() + 1);
  }
  return search;
}

StatusOr<Transcription> Transcriber::Transcribe(const std::vector<float>& samples, const TranscribeOptions& options) {
  auto search = Resolve(options);
  if (!search.ok()) return search.status();
  Transcription result;
  result.prompt = {search->start_token};
  result.prompt.insert(result.prompt.end(), search->prompt_tokens.begin(), search->prompt_tokens.end());
  const int64_t window = window_samples();
  const int64_t windows = (static_cast<int64_t>(samples.size()) + window - 1) / window;
  const int64_t per_batch = std::max<int64_t>(1, std::min(info().max_rows / search->beams, info().max_sources));
  for (int64_t first = 0; first < windows; first += per_batch) {
    const int64_t count = std::min(per_batch, windows - first);
    std::vector<float> features;
    for (int64_t w = first; w < first + count; ++w) {
      const size_t start = static_cast<size_t>(w * window);
      const size_t length = std::min(samples.size() - start, static_cast<size_t>(window));
      std::vector<float> one = log_mel_->Compute(samples.data() + start, length);
      features.insert(features.end(), one.begin(), one.end());
    }
    auto ids = model_->Generate(features, count, search.value());
    if (!ids.ok()) return ids.status();
    for (auto& window_ids : ids.value()) {
      auto text = tokenizer_->Decode(window_ids);
      if (!text.ok()) return text.status();
      result.text += text.value();
      result.ids.push_back(std::move(window_ids));
    }
  }
  return result;
}

StatusOr<LongFormTranscript> Transcriber::TranscribeLongForm(const std::vector<float>& samples,
                                                             const LongFormOptions& options, const VadFilter* vad) {
  if (!tokens_.ok()) {
    return Failure(tokens_.status().code(), "%s (long-form decoding needs them; --decoding=windows does not)",
                   tokens_.status().message().c_str());
  }
  SpeechAudio speech;
  if (vad != nullptr) {
    auto kept = KeepSpeech(*vad->model, samples, vad->options);
    if (!kept.ok()) return kept.status();
    speech = std::move(kept.value());
  }
  const std::vector<float>& heard = vad != nullptr ? speech.samples : samples;
  const Spectrogram all = log_mel_->ComputeAll(heard.data(), heard.size());
  LongForm long_form(*model_, *tokenizer_, tokens_.value());
  // faster-whisper's content frames: the last of ComputeAll's frames is the padding's.
  const int64_t content_frames = std::max<int64_t>(0, all.frames - 1);
  LongFormTranscript transcript;
  transcript.speech_seconds = static_cast<double>(heard.size()) / sampling_rate();
  if (vad != nullptr && heard.empty()) return transcript;  // no speech: no segment, as faster-whisper
  auto segments = long_form.Run([&](int64_t seek, int64_t size) { return log_mel_->Window(all, seek, size); },
                                content_frames, options);
  if (!segments.ok()) return segments.status();
  transcript.segments = std::move(segments.value());
  if (vad != nullptr) {
    const SpeechTimestampsMap map(speech.chunks, static_cast<int>(sampling_rate()));
    for (TranscriptSegment& segment : transcript.segments) {
      if (segment.words.empty()) {
        segment.start = map.OriginalTime(segment.start, /*is_end=*/false);
        segment.end = map.OriginalTime(segment.end, /*is_end=*/true);
        continue;
      }
      // restore_speech_timestamps: a word's start and end through the chunk of its
      // middle; the segment spans its words.
      for (Word& word : segment.words) {
        const size_t chunk = map.ChunkIndex((word.start + word.end) / 2);
        word.start = map.OriginalTime(word.start, chunk);
        word.end = map.OriginalTime(word.end, chunk);
      }
      segment.start = segment.words.front().start;
      segment.end = segment.words.back().end;
    }
  }
  return transcript;
}

}  // namespace pteforge
