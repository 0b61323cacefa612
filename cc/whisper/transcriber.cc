#include "cc/whisper/transcriber.h"

#include <algorithm>

#include "cc/runtime/constants.h"
#include "cc/translate/marian_model.h"
#include "cc/translate/search.h"

namespace pteforge {
namespace {

// Whisper's audio front end: every Whisper model's (WhisperFeatureExtractor's defaults).
constexpr int64_t kSamplingRate = 16000;
constexpr int64_t kHopLength = 160;

// The Seq2SeqModel of a Whisper program over one batch of windows' features: a Marian
// program's, but encode takes features and decode_step no source mask.
class WhisperRows : public MarianModel {
 public:
  WhisperRows(Session* session, int64_t vocab_size, int64_t pad_token, HostTensor features)
      : MarianModel(session, vocab_size, pad_token), features_(std::move(features)) {}

  Status Encode(const std::vector<std::vector<int64_t>>& sources, int beams) override {
    ScopeTimer timer(&encode_ns_);
    std::vector<int64_t> rows;
    for (size_t window = 0; window < sources.size(); ++window) {
      for (int k = 0; k < beams; ++k) rows.push_back(static_cast<int64_t>(window));
    }
    auto result = session_->Execute("encode", {features_, Int64Tensor({static_cast<int64_t>(rows.size())}, rows)});
    return result.ok() ? Status() : result.status();
  }

  StatusOr<StepScores> Step(const std::vector<int64_t>& tokens, int64_t length) override {
    const int64_t n = static_cast<int64_t>(tokens.size());
    const HostTensor decoder_mask = Int64Tensor({n, length}, std::vector<int64_t>(n * length, 1));
    auto log_probs = RunStep({Int64Tensor({n, 1}, tokens), decoder_mask}, n * vocab_size_);
    if (!log_probs.ok()) return log_probs.status();
    StepScores scores;
    scores.width = vocab_size_;
    scores.values = std::move(log_probs.value());
    return scores;
  }

 private:
  HostTensor features_;
};

}  // namespace

Transcriber::~Transcriber() = default;

StatusOr<std::unique_ptr<Transcriber>> Transcriber::Open(const std::string& path, SessionOptions options) {
  auto session = Session::Open(path, options);
  if (!session.ok()) return session.status();
  std::unique_ptr<Transcriber> transcriber(new Transcriber());
  transcriber->session_ = std::move(session.value());
  Session& s = *transcriber->session_;
  const std::string what = "'" + path + "'";
  std::string family;
  Status read = ReadConstant(s, "family", "a Whisper program", &family);
  if (!read.ok() || family != "seq2seq") {
    return Failure(Error::NotSupported, "%s is not a Whisper program exported by pteforge.seq2seq (%s)", what.c_str(),
                   read.ok() ? ("its family is '" + family + "'").c_str() : read.message().c_str());
  }
  auto info = ReadSeq2SeqProgram(s, what);
  if (!info.ok()) return info.status();
  if (info->encoder_input != "input_features") {
    return Failure(Error::NotSupported, "%s is a text model (its encoder takes %s, not audio): use translate",
                   what.c_str(), info->encoder_input.c_str());
  }
  transcriber->info_ = std::move(info.value());
  auto tokenizer = HfTextTokenizer::FromProgram(s, what);
  if (!tokenizer.ok()) return tokenizer.status();
  transcriber->tokenizer_ = std::move(tokenizer.value());
  // The mel bins and frames: encode's input_features [rows, mel, frames].
  auto signature = s.Signature("encode");
  if (!signature.ok()) return signature.status();
  if (signature->inputs.empty() || signature->inputs[0].max_sizes.size() != 3) {
    return Failure(Error::InvalidProgram, "%s: encode does not take features [rows, mel, frames]", what.c_str());
  }
  LogMelOptions log_mel;
  log_mel.sampling_rate = kSamplingRate;
  log_mel.hop_length = kHopLength;
  log_mel.n_mels = signature->inputs[0].max_sizes[1];
  log_mel.window_samples = signature->inputs[0].max_sizes[2] * kHopLength;
  transcriber->log_mel_ = std::make_unique<LogMel>(log_mel);
  return transcriber;
}

StatusOr<SearchOptions> Transcriber::Resolve(const TranscribeOptions& options) const {
  SearchOptions search = info_.defaults;
  if (options.beams > 0) search.beams = options.beams;
  if (options.max_length > 0) search.max_length = options.max_length;
  PTEFORGE_RETURN_IF_ERROR(CheckFits(search, info_.max_rows, info_.max_target_length));
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
  const int64_t window = window_samples(), n_mels = log_mel_->options().n_mels, frames = log_mel_->frames();
  const int64_t windows = (static_cast<int64_t>(samples.size()) + window - 1) / window;
  const int64_t per_batch = std::max<int64_t>(1, info_.max_rows / search->beams);
  for (int64_t first = 0; first < windows; first += per_batch) {
    const int64_t count = std::min(per_batch, windows - first);
    std::vector<float> features;
    for (int64_t w = first; w < first + count; ++w) {
      const size_t start = static_cast<size_t>(w * window);
      const size_t length = std::min(samples.size() - start, static_cast<size_t>(window));
      std::vector<float> one = log_mel_->Compute(samples.data() + start, length);
      features.insert(features.end(), one.begin(), one.end());
    }
    WhisperRows rows(session_.get(), info_.vocab_size, search->pad_token,
                     HostTensor::FromValues(ScalarType::Float, {count, n_mels, frames}, features));
    auto ids = Search(rows, std::vector<std::vector<int64_t>>(count), search.value());
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

}  // namespace pteforge
