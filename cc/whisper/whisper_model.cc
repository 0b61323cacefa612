#include "cc/whisper/whisper_model.h"

#include <algorithm>
#include <cstring>

#include "cc/generate/search.h"
#include "cc/runtime/constants.h"
#include "cc/seq2seq/marian_model.h"

namespace pteforge {
namespace {

// Whisper's audio front end: every Whisper model's (WhisperFeatureExtractor's defaults).
constexpr int64_t kSamplingRate = 16000;
constexpr int64_t kHopLength = 160;

// The Seq2SeqModel of a Whisper program over one batch of windows' features: a Marian
// program's, but encode takes features and decode_step no source mask. Adds its times
// to `totals` when it goes.
class WhisperRows : public MarianModel {
 public:
  WhisperRows(Session* session, int64_t vocab_size, int64_t pad_token, HostTensor features, TranslateStats* totals)
      : MarianModel(session, vocab_size, pad_token), features_(std::move(features)), totals_(totals) {
    const auto& methods = session->methods();
    can_prefill_ = std::find(methods.begin(), methods.end(), "prefill") != methods.end();
  }

  ~WhisperRows() override {
    const TranslateStats mine = stats();
    totals_->encode_ms += mine.encode_ms;
    totals_->decode_ms += mine.decode_ms;
    totals_->steps += mine.steps;
  }

  Status Encode(const std::vector<std::vector<int64_t>>& sources, int beams) override {
    std::vector<int64_t> rows;
    for (size_t window = 0; window < sources.size(); ++window) {
      for (int k = 0; k < beams; ++k) rows.push_back(static_cast<int64_t>(window));
    }
    // The same features for the same rows: the cross-attention cache holds them already
    // (a window decoded again at another temperature). A search rewrites every
    // self-attention position before it reads it.
    if (rows == encoded_rows_) return Status();
    ScopeTimer timer(&encode_ns_);
    auto result = session_->Execute("encode", {features_, Int64Tensor({static_cast<int64_t>(rows.size())}, rows)});
    if (!result.ok()) return result.status();
    encoded_rows_ = std::move(rows);
    return Status();
  }

  bool CanPrefill() const override { return can_prefill_; }

  StatusOr<StepScores> Prefill(const std::vector<int64_t>& tokens, int64_t length, int64_t position) override {
    ScopeTimer timer(&decode_ns_);
    const int64_t count = static_cast<int64_t>(tokens.size());
    auto result = session_->Execute("prefill", {Int64Tensor({1, count}, tokens),
                                                Int64Tensor({1, length}, std::vector<int64_t>(length, 1)),
                                                Int64Tensor({1}, {position})});
    if (!result.ok()) return result.status();
    const auto* logits = result->empty() ? nullptr : std::get_if<HostTensor>(&result->at(0));
    if (logits == nullptr || logits->dtype != ScalarType::Float || logits->numel() != vocab_size_) {
      return Failure(Error::InvalidProgram, "prefill returned %s, expected %lld float32 values",
                     result->empty() ? "nothing" : DescribeValue(result->at(0)).c_str(),
                     static_cast<long long>(vocab_size_));
    }
    StepScores scores;
    scores.width = vocab_size_;
    scores.values.resize(vocab_size_);
    std::memcpy(scores.values.data(), logits->bytes.data(), logits->bytes.size());
    return scores;
  }

  StatusOr<StepScores> Step(const std::vector<int64_t>& tokens, int64_t length) override {
    const int64_t n = static_cast<int64_t>(tokens.size());
    const HostTensor decoder_mask = Int64Tensor({n, length}, std::vector<int64_t>(n * length, 1));
    auto logits = RunStep({Int64Tensor({n, 1}, tokens), decoder_mask}, n * vocab_size_);
    if (!logits.ok()) return logits.status();
    StepScores scores;
    scores.width = vocab_size_;
    scores.values = std::move(logits.value());
    return scores;
  }

 private:
  HostTensor features_;
  TranslateStats* totals_;
  bool can_prefill_ = false;  // programs exported before prefill have none
  std::vector<int64_t> encoded_rows_;  // each row's window as last encoded
};

}  // namespace

StatusOr<std::unique_ptr<WhisperModel>> WhisperModel::Create(std::unique_ptr<Session> session,
                                                             const std::string& what) {
  std::unique_ptr<WhisperModel> model(new WhisperModel());
  model->session_ = std::move(session);
  Session& s = *model->session_;
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
  model->info_ = std::move(info.value());
  // The mel bins and frames: encode's input_features [rows, mel, frames].
  auto signature = s.Signature("encode");
  if (!signature.ok()) return signature.status();
  if (signature->inputs.empty() || signature->inputs[0].max_sizes.size() != 3) {
    return Failure(Error::InvalidProgram, "%s: encode does not take features [rows, mel, frames]", what.c_str());
  }
  model->log_mel_.sampling_rate = kSamplingRate;
  model->log_mel_.hop_length = kHopLength;
  model->log_mel_.n_mels = signature->inputs[0].max_sizes[1];
  model->log_mel_.window_samples = signature->inputs[0].max_sizes[2] * kHopLength;
  const auto& methods = s.methods();
  if (std::find(methods.begin(), methods.end(), "align") != methods.end()) {
    auto align = s.Signature("align");
    if (!align.ok()) return align.status();
    if (align->inputs.size() != 1 || align->inputs[0].max_sizes.size() != 2) {
      return Failure(Error::InvalidProgram, "%s: align does not take tokens [1, T]", what.c_str());
    }
    model->max_align_tokens_ = align->inputs[0].max_sizes[1];
  }
  return model;
}

StatusOr<std::unique_ptr<Seq2SeqModel>> WhisperModel::Windows(const std::vector<float>& features, int64_t count,
                                                               int64_t pad_token) {
  const int64_t frames = log_mel_.window_samples / log_mel_.hop_length;
  if (count > info_.max_sources) {
    return Failure(Error::InvalidArgument, "%lld windows at once exceed the program's %lld sources",
                   static_cast<long long>(count), static_cast<long long>(info_.max_sources));
  }
  if (count < 1 || static_cast<int64_t>(features.size()) != count * log_mel_.n_mels * frames) {
    return Failure(Error::InvalidArgument, "%zu feature values are not %lld window(s) of %lld mels x %lld frames",
                   features.size(), static_cast<long long>(count), static_cast<long long>(log_mel_.n_mels),
                   static_cast<long long>(frames));
  }
  return std::unique_ptr<Seq2SeqModel>(
      new WhisperRows(session_.get(), info_.vocab_size, pad_token,
                      HostTensor::FromValues(ScalarType::Float, {count, log_mel_.n_mels, frames}, features), &stats_));
}

StatusOr<WhisperModel::AlignmentScores> WhisperModel::Align(const std::vector<int64_t>& tokens) {
  const int64_t count = static_cast<int64_t>(tokens.size());
  if (!CanAlign()) {
    return Failure(Error::NotSupported,
                   "this Whisper program has no align method (word timing): export it again with this pteforge");
  }
  if (count < 3 || count > max_align_tokens_) {
    return Failure(Error::InvalidArgument, "align takes 3 to %lld tokens, not %lld",
                   static_cast<long long>(max_align_tokens_), static_cast<long long>(count));
  }
  for (int64_t id : tokens) {
    if (id < 0 || id >= info_.vocab_size) {
      return Failure(Error::InvalidArgument, "token %lld is outside the vocabulary of %lld", static_cast<long long>(id),
                     static_cast<long long>(info_.vocab_size));
    }
  }
  auto result = session_->Execute("align", {Int64Tensor({1, count}, tokens)});
  if (!result.ok()) return result.status();
  const HostTensor* scores = result->size() == 2 ? std::get_if<HostTensor>(&result->at(0)) : nullptr;
  const HostTensor* probs = result->size() == 2 ? std::get_if<HostTensor>(&result->at(1)) : nullptr;
  if (scores == nullptr || probs == nullptr || scores->dtype != ScalarType::Float || scores->sizes.size() != 3 ||
      scores->sizes[1] != count || probs->dtype != ScalarType::Float || probs->numel() != count - 1) {
    return Failure(Error::InvalidProgram, "align returned %zu values, not scores [heads, %lld, frames] and %lld "
                   "probabilities (float32)", result->size(), static_cast<long long>(count),
                   static_cast<long long>(count - 1));
  }
  AlignmentScores out;
  out.heads = scores->sizes[0];
  out.tokens = count;
  out.frames = scores->sizes[2];
  out.scores.assign(scores->data<float>(), scores->data<float>() + scores->numel());
  out.next_token_probs.assign(probs->data<float>(), probs->data<float>() + probs->numel());
  return out;
}

StatusOr<std::vector<std::vector<int64_t>>> WhisperModel::Generate(const std::vector<float>& features, int64_t count,
                                                                   const SearchOptions& search) {
  auto rows = Windows(features, count, search.pad_token);
  if (!rows.ok()) return rows.status();
  return Search(*rows.value(), std::vector<std::vector<int64_t>>(static_cast<size_t>(count)), search);
}

}  // namespace pteforge
