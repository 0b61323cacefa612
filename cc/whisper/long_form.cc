#include "cc/whisper/long_form.h"

#include <algorithm>
#include <cmath>

#include "cc/text/strip.h"
#include "cc/whisper/compression_ratio.h"
#include "cc/whisper/suppressed_tokens.h"
#include "cc/whisper/window_decoder.h"

namespace pteforge {
namespace {

constexpr double kSecondsPerFrame = 0.01;  // hop 160 at 16 kHz
constexpr int64_t kFramesPerToken = 2;     // the encoder's stride: a timestamp step is 0.02 s
constexpr int64_t kWhisperMaxLength = 448;  // faster-whisper's decoder positions per window

struct Split {
  std::vector<TranscriptSegment> segments;
  int64_t seek = 0;
  bool single_timestamp_ending = false;  // nothing said after the last timestamp
};

// faster-whisper's _split_segments_by_timestamps: segments between consecutive
// timestamp pairs; the next window starts after the last complete pair, or after this
// window when it ends with a single timestamp (nothing said after it) or has no pair.
Split SplitByTimestamps(const WhisperTokens& t, const std::vector<int64_t>& tokens, double time_offset,
                        int64_t segment_size, double segment_duration, int64_t seek) {
  Split split;
  const size_t n = tokens.size();
  const bool single_timestamp_ending = n >= 2 && !t.IsTimestamp(tokens[n - 2]) && t.IsTimestamp(tokens[n - 1]);
  split.single_timestamp_ending = single_timestamp_ending;
  std::vector<size_t> slices;
  for (size_t i = 1; i < n; ++i) {
    if (t.IsTimestamp(tokens[i]) && t.IsTimestamp(tokens[i - 1])) slices.push_back(i);
  }
  if (!slices.empty()) {
    if (single_timestamp_ending) slices.push_back(n);
    size_t last_slice = 0;
    for (size_t slice : slices) {
      TranscriptSegment segment;
      segment.seek = seek;
      segment.tokens.assign(tokens.begin() + last_slice, tokens.begin() + slice);
      segment.start = time_offset + t.Seconds(segment.tokens.front());
      segment.end = time_offset + t.Seconds(segment.tokens.back());
      split.segments.push_back(std::move(segment));
      last_slice = slice;
    }
    split.seek = single_timestamp_ending
                     ? seek + segment_size
                     : seek + (tokens[last_slice - 1] - t.timestamp_begin) * kFramesPerToken;
    return split;
  }
  double duration = segment_duration;
  for (auto it = tokens.rbegin(); it != tokens.rend(); ++it) {
    if (t.IsTimestamp(*it)) {
      if (*it != t.timestamp_begin) duration = t.Seconds(*it);
      break;
    }
  }
  TranscriptSegment segment;
  segment.seek = seek;
  segment.start = time_offset;
  segment.end = time_offset + duration;
  segment.tokens = tokens;
  split.segments.push_back(std::move(segment));
  split.seek = seek + segment_size;
  return split;
}

}  // namespace

struct LongForm::Decoded {
  WindowResult result;
  double temperature = 0;
  double compression_ratio = 0;
};

StatusOr<std::string> LongForm::Text(const std::vector<int64_t>& tokens) const {
  std::vector<int64_t> text;
  for (int64_t id : tokens) {
    if (id < tokens_.eot) text.push_back(id);
  }
  return tokenizer_.Decode(text);
}

Status LongForm::AddWords(const std::vector<int64_t>& start_sequence, int64_t num_frames,
                          const LongFormOptions& options, double* last_speech_timestamp,
                          std::vector<TranscriptSegment>* segments) const {
  // CTranslate2's align: the start tokens, <|notimestamps|>, the window's text and
  // <|endoftext|>, teacher-forced over the window.
  const std::vector<int64_t> text = WindowTextTokens(*segments, tokens_.eot);
  std::vector<int64_t> forced = start_sequence;
  forced.push_back(tokens_.no_timestamps);
  forced.insert(forced.end(), text.begin(), text.end());
  forced.push_back(tokens_.eot);
  auto aligned = model_.Align(forced);
  if (!aligned.ok()) return aligned.status();
  const int64_t sot_length = static_cast<int64_t>(start_sequence.size());
  auto path = AlignmentPath(aligned->scores, aligned->heads, aligned->tokens, aligned->frames, num_frames, sot_length,
                            static_cast<int64_t>(text.size()));
  if (!path.ok()) return path.status();
  // The probability of text token t: after position sot_length + t (<|notimestamps|> first).
  const auto first = aligned->next_token_probs.begin() + sot_length;
  const std::vector<float> probs(first, first + static_cast<int64_t>(text.size()));
  WordSplitter splitter;
  splitter.eot = tokens_.eot;
  splitter.language = options.language;
  splitter.decode = [this](const std::vector<int64_t>& ids) { return tokenizer_.Decode(ids); };
  auto last = AddWordTimestamps(probs, path.value(), splitter, *last_speech_timestamp, segments,
                                options.prepend_punctuations, options.append_punctuations);
  if (!last.ok()) return last.status();
  // generate_segments keeps get_end's value, not add_word_timestamps' own.
  if (const auto end = LastWordEnd(*segments)) *last_speech_timestamp = *end;
  return Status();
}

StatusOr<std::vector<int64_t>> LongForm::StartSequence(const LongFormOptions& options) const {
  std::vector<int64_t> sequence = {tokens_.sot};
  if (!tokens_.multilingual) return sequence;
  for (const std::string& name : {"<|" + options.language + "|>", "<|" + options.task + "|>"}) {
    const auto id = tokenizer_.TokenToId(name);
    if (!id.has_value()) return Failure(Error::InvalidArgument, "the model's tokenizer has no %s token", name.c_str());
    sequence.push_back(*id);
  }
  return sequence;
}

// faster-whisper's generate_with_fallback: the temperatures in turn until a decode is
// neither too repetitive nor too improbable (an improbable one that is probably silence
// is kept: the caller skips it); when none passes, the most probable of those under the
// compression threshold (of all when none is), with the last temperature.
StatusOr<LongForm::Decoded> LongForm::DecodeWithFallback(const std::vector<float>& features,
                                                         const std::vector<int64_t>& prompt,
                                                         const std::vector<int64_t>& suppressed,
                                                         const LongFormOptions& options) {
  WindowDecodeOptions decode;
  decode.beam_size = options.beam_size;
  decode.best_of = options.best_of;
  decode.patience = options.patience;
  decode.length_penalty = options.length_penalty;
  decode.suppress_tokens = suppressed;
  if (options.suppress_blank) decode.suppress_at_begin = model_.info().defaults.begin_suppress_tokens;
  decode.max_initial_timestamp_index = std::lround(options.max_initial_timestamp / 0.02);
  decode.max_length = std::min(kWhisperMaxLength, model_.info().max_target_length);
  // One model over the window for every temperature: it encodes the window once
  // (WhisperModel::Windows), as faster-whisper reuses its encoder output.
  auto window = model_.Windows(features, 1, tokens_.eot);
  if (!window.ok()) return window.status();
  std::vector<Decoded> all, below_threshold;
  for (size_t i = 0; i < options.temperatures.size(); ++i) {
    decode.temperature = options.temperatures[i];
    decode.seed = options.seed + i;
    auto result = DecodeWindow(*window.value(), tokens_, prompt, decode);
    if (!result.ok()) return result.status();
    Decoded decoded{std::move(result.value()), decode.temperature, 0.0};
    auto text = Text(decoded.result.tokens);
    if (!text.ok()) return text.status();
    decoded.compression_ratio = CompressionRatio(StripWhitespace(text.value()));
    bool fallback = false;
    if (options.compression_ratio_threshold) {
      if (decoded.compression_ratio > *options.compression_ratio_threshold) {
        fallback = true;
      } else {
        below_threshold.push_back(decoded);
      }
    }
    const bool improbable = options.log_prob_threshold && decoded.result.avg_logprob < *options.log_prob_threshold;
    if (improbable) fallback = true;
    if (options.no_speech_threshold && decoded.result.no_speech_prob > *options.no_speech_threshold && improbable) {
      fallback = false;  // silence: kept, and skipped by the caller
    }
    all.push_back(decoded);
    if (!fallback) return decoded;
  }
  const std::vector<Decoded>& pool = below_threshold.empty() ? all : below_threshold;
  Decoded best = *std::max_element(pool.begin(), pool.end(), [](const Decoded& a, const Decoded& b) {
    return a.result.avg_logprob < b.result.avg_logprob;
  });
  best.temperature = options.temperatures.back();
  return best;
}

StatusOr<std::vector<TranscriptSegment>> LongForm::Run(const WindowFeatures& windows, int64_t content_frames,
                                             const LongFormOptions& options) {
  if (options.temperatures.empty()) return Failure(Error::InvalidArgument, "no temperature to decode at");
  auto start_sequence = StartSequence(options);
  if (!start_sequence.ok()) return start_sequence.status();
  auto suppressed = FasterWhisperSuppressedTokens(tokenizer_, tokens_);
  if (!suppressed.ok()) return suppressed.status();
  const int64_t window_frames = model_.log_mel_options().window_samples / model_.log_mel_options().hop_length;
  const int64_t max_length = std::min(kWhisperMaxLength, model_.info().max_target_length);
  std::vector<int64_t> all_tokens;
  if (!options.initial_prompt.empty()) {
    auto initial = tokenizer_.EncodeWithoutSpecialTokens(" " + StripWhitespace(options.initial_prompt));
    if (!initial.ok()) return initial.status();
    all_tokens = std::move(initial.value());
  }
  size_t prompt_reset_since = 0;
  if (options.word_timestamps && !model_.CanAlign()) {
    return Failure(Error::NotSupported, "word timestamps need the program's align method, which programs exported "
                   "before 2026-11-28 lack: export the model again");
  }
  std::vector<TranscriptSegment> segments;
  double last_speech_timestamp = 0;
  int64_t seek = 0;
  while (seek < content_frames) {
    const double time_offset = seek * kSecondsPerFrame;
    const int64_t segment_size = std::min(window_frames, content_frames - seek);
    const double segment_duration = segment_size * kSecondsPerFrame;
    // faster-whisper's get_prompt: the previous text, at most max_length / 2 - 1 tokens.
    std::vector<int64_t> prompt;
    const size_t previous = all_tokens.size() - prompt_reset_since;
    if (previous > 0) {
      const size_t keep = std::min(previous, static_cast<size_t>(max_length / 2 - 1));
      prompt.push_back(tokens_.sot_prev);
      prompt.insert(prompt.end(), all_tokens.end() - keep, all_tokens.end());
    }
    prompt.insert(prompt.end(), start_sequence->begin(), start_sequence->end());
    if (options.without_timestamps) prompt.push_back(tokens_.no_timestamps);

    auto decoded = DecodeWithFallback(windows(seek, segment_size), prompt, suppressed.value(), options);
    if (!decoded.ok()) return decoded.status();
    const WindowResult& result = decoded->result;
    if (options.no_speech_threshold && result.no_speech_prob > *options.no_speech_threshold &&
        !(options.log_prob_threshold && result.avg_logprob > *options.log_prob_threshold)) {
      seek += segment_size;  // silence
      continue;
    }
    const int64_t previous_seek = seek;
    Split split = SplitByTimestamps(tokens_, result.tokens, time_offset, segment_size, segment_duration, seek);
    // A window always moves on (the timestamp rules make the last pair end after 0.00 s;
    // this only guards against a program that breaks them).
    seek = std::max(split.seek, previous_seek + 1);
    if (options.word_timestamps) {
      PTEFORGE_RETURN_IF_ERROR(AddWords(start_sequence.value(), segment_size, options, &last_speech_timestamp,
                                        &split.segments));
      // The next window starts after the last word said (a window that ends with a single
      // timestamp has been heard to its end).
      const auto last_word_end = LastWordEnd(split.segments);
      if (!split.single_timestamp_ending && last_word_end && *last_word_end > time_offset) {
        seek = static_cast<int64_t>(std::nearbyint(*last_word_end * 100));  // Python's round(): half to even
      }
    }
    for (TranscriptSegment& segment : split.segments) {
      auto text = Text(segment.tokens);
      if (!text.ok()) return text.status();
      if (segment.start == segment.end || StripWhitespace(text.value()).empty()) continue;
      all_tokens.insert(all_tokens.end(), segment.tokens.begin(), segment.tokens.end());
      segment.id = static_cast<int>(segments.size()) + 1;
      segment.seek = previous_seek;
      segment.text = std::move(text.value());
      segment.temperature = decoded->temperature;
      segment.avg_logprob = result.avg_logprob;
      segment.compression_ratio = decoded->compression_ratio;
      segment.no_speech_prob = result.no_speech_prob;
      segments.push_back(std::move(segment));
    }
    if (!options.condition_on_previous_text || decoded->temperature > options.prompt_reset_on_temperature) {
      prompt_reset_since = all_tokens.size();
    }
  }
  return segments;
}

}  // namespace pteforge
