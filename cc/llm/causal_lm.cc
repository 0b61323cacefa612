#include "cc/llm/causal_lm.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include <executorch/runtime/platform/clock.h>
#include <executorch/runtime/platform/platform.h>

#include "cc/runtime/constants.h"

namespace pteforge {
namespace {

constexpr const char* kKind = "a causal language model (pteforge.llm)";

template <typename T>
Status Read(Session& session, const char* name, T* out) {
  return ReadConstant(session, name, kKind, out);
}

double MillisecondsBetween(et_timestamp_t start, et_timestamp_t end) {
  return static_cast<double>(executorch::runtime::ticks_to_ns(end - start)) / 1e6;
}

// prefill takes int64 [1, n] up to max_seq_len, decode_step int64 [1, 1]; both return
// float32 [1, vocab_size].
Status CheckSignature(const Session& session, const char* method, int64_t max_tokens, int64_t vocab_size,
                      const std::string& what) {
  auto signature = session.Signature(method);
  if (!signature.ok()) {
    return Failure(Error::InvalidProgram, "%s is not %s: %s", what.c_str(), kKind, signature.status().message().c_str());
  }
  const auto& inputs = signature->inputs;
  const auto& outputs = signature->outputs;
  const bool input_ok = inputs.size() == 1 && inputs[0].dtype == ScalarType::Long &&
                        inputs[0].max_sizes.size() == 2 && inputs[0].max_sizes[0] == 1 &&
                        inputs[0].max_sizes[1] == max_tokens;
  const bool output_ok = outputs.size() == 1 && outputs[0].dtype == ScalarType::Float &&
                         outputs[0].max_sizes == std::vector<int64_t>{1, vocab_size};
  if (!input_ok || !output_ok) {
    return Failure(Error::InvalidProgram,
                   "%s: method '%s' does not have the signature pteforge.llm exports (int64[1, %lld] -> "
                   "float32[1, %lld])",
                   what.c_str(), method, static_cast<long long>(max_tokens), static_cast<long long>(vocab_size));
  }
  return Status();
}

}  // namespace

const char* StopReasonName(StopReason reason) {
  switch (reason) {
    case StopReason::kEos:
      return "eos";
    case StopReason::kMaxNewTokens:
      return "max_new_tokens";
    case StopReason::kMaxSeqLen:
      return "max_seq_len";
  }
  return "?";
}

StatusOr<std::unique_ptr<CausalLm>> CausalLm::Create(std::unique_ptr<Session> session, const std::string& what) {
  std::unique_ptr<CausalLm> lm(new CausalLm());
  lm->session_ = std::move(session);
  Session& s = *lm->session_;
  CausalLmInfo& info = lm->info_;
  std::string family;
  Status read = Read(s, "family", &family);
  if (!read.ok()) return Failure(read.code(), "%s: %s", what.c_str(), read.message().c_str());
  if (family != "causal_lm") {
    return Failure(Error::InvalidProgram, "%s is a '%s' program, not %s", what.c_str(), family.c_str(), kKind);
  }
  SamplingOptions& d = info.defaults;
  for (Status status : {Read(s, "model_type", &info.model_type), Read(s, "max_seq_len", &info.max_seq_len),
                        Read(s, "vocab_size", &info.vocab_size), Read(s, "bos_token_id", &info.bos_token),
                        Read(s, "eos_token_ids", &info.eos_tokens), Read(s, "do_sample", &d.do_sample),
                        Read(s, "temperature", &d.temperature), Read(s, "top_k", &d.top_k),
                        Read(s, "top_p", &d.top_p), Read(s, "repetition_penalty", &d.repetition_penalty),
                        Read(s, "max_new_tokens", &info.max_new_tokens)}) {
    PTEFORGE_RETURN_IF_ERROR(status);
  }
  const auto& constants = s.constants();
  info.has_tokenizer = std::find(constants.begin(), constants.end(), "tokenizer_json") != constants.end();
  PTEFORGE_RETURN_IF_ERROR(CheckSignature(s, "prefill", info.max_seq_len, info.vocab_size, what));
  PTEFORGE_RETURN_IF_ERROR(CheckSignature(s, "decode_step", 1, info.vocab_size, what));
  return lm;
}

GenerateOptions CausalLm::Defaults() const {
  GenerateOptions options;
  options.sampling = info_.defaults;
  options.max_new_tokens = info_.max_new_tokens;
  return options;
}

Status CausalLm::Run(const char* method, const std::vector<int64_t>& tokens, std::vector<float>* logits) {
  std::vector<Value> inputs;
  inputs.emplace_back(HostTensor::FromValues(ScalarType::Long, {1, static_cast<int64_t>(tokens.size())}, tokens));
  auto outputs = session_->Execute(method, inputs);
  if (!outputs.ok()) return outputs.status();
  const HostTensor& result = std::get<HostTensor>(outputs->at(0));  // the signature was checked
  logits->resize(info_.vocab_size);
  std::memcpy(logits->data(), result.bytes.data(), logits->size() * sizeof(float));
  return Status();
}

Status CausalLm::Reset() {
  cached_.clear();
  return session_->ResetState();
}

StatusOr<Generation> CausalLm::Generate(const std::vector<int64_t>& prompt, const GenerateOptions& options,
                                        TokenSink* sink) {
  PTEFORGE_RETURN_IF_ERROR(CheckSamplingOptions(options.sampling));
  const int64_t length = static_cast<int64_t>(prompt.size());
  if (length == 0) return Failure(Error::InvalidArgument, "the prompt is empty: give at least one token");
  if (length >= info_.max_seq_len) {
    return Failure(Error::InvalidArgument,
                   "the prompt has %lld tokens; this model holds max_seq_len=%lld tokens, prompt and generated "
                   "together: shorten the prompt to at most %lld tokens (or export with a larger max_seq_len)",
                   static_cast<long long>(length), static_cast<long long>(info_.max_seq_len),
                   static_cast<long long>(info_.max_seq_len - 1));
  }
  PTEFORGE_RETURN_IF_ERROR(Reset());
  return Continue(prompt, options, sink);
}

StatusOr<Generation> CausalLm::Continue(const std::vector<int64_t>& tokens, const GenerateOptions& options,
                                        TokenSink* sink) {
  PTEFORGE_RETURN_IF_ERROR(CheckSamplingOptions(options.sampling));
  const int64_t length = static_cast<int64_t>(tokens.size());
  const int64_t used = static_cast<int64_t>(cached_.size()) + length;
  if (length == 0) return Failure(Error::InvalidArgument, "no tokens to continue with: give at least one");
  if (used >= info_.max_seq_len) {
    return Failure(Error::InvalidArgument,
                   "%lld tokens are in the cache and %lld more would leave no room for a generated one: this model "
                   "holds max_seq_len=%lld tokens (start again with fewer, or export with a larger max_seq_len)",
                   static_cast<long long>(cached_.size()), static_cast<long long>(length),
                   static_cast<long long>(info_.max_seq_len));
  }
  for (int64_t id : tokens) {
    if (id < 0 || id >= info_.vocab_size) {
      return Failure(Error::InvalidArgument, "token id %lld is outside the vocabulary (0 to %lld)",
                     static_cast<long long>(id), static_cast<long long>(info_.vocab_size - 1));
    }
  }
  const int64_t room = info_.max_seq_len - used;
  const int64_t wanted = options.max_new_tokens > 0 ? options.max_new_tokens : INT64_MAX;
  const int64_t limit = std::min(room, wanted);
  auto stops = [&](int64_t token) {
    const auto& extra = options.stop_tokens;
    return (options.stop_at_eos &&
            std::find(info_.eos_tokens.begin(), info_.eos_tokens.end(), token) != info_.eos_tokens.end()) ||
           std::find(extra.begin(), extra.end(), token) != extra.end();
  };

  Sampler sampler(options.sampling, options.seed);
  Generation generation;
  std::vector<float> logits;
  const et_timestamp_t start = executorch::runtime::pal_current_ticks();
  PTEFORGE_RETURN_IF_ERROR(Run(length > 1 ? "prefill" : "decode_step", tokens, &logits));
  cached_.insert(cached_.end(), tokens.begin(), tokens.end());
  generation.prefill_ms = MillisecondsBetween(start, executorch::runtime::pal_current_ticks());
  std::vector<int64_t> context = cached_;  // for the repetition penalty: the whole conversation
  et_timestamp_t decode_start = 0;
  for (;;) {
    const int64_t token = sampler.Next(&logits, context);
    if (generation.tokens.empty()) {
      decode_start = executorch::runtime::pal_current_ticks();
      generation.first_token_ms = MillisecondsBetween(start, decode_start);
    }
    generation.tokens.push_back(token);
    context.push_back(token);
    if (sink != nullptr) PTEFORGE_RETURN_IF_ERROR(sink->OnToken(token));
    const int64_t count = static_cast<int64_t>(generation.tokens.size());
    if (stops(token)) {
      generation.stop = StopReason::kEos;
      break;
    }
    if (count == limit) {
      generation.stop = limit == room && room < wanted ? StopReason::kMaxSeqLen : StopReason::kMaxNewTokens;
      break;
    }
    PTEFORGE_RETURN_IF_ERROR(Run("decode_step", {token}, &logits));
    cached_.push_back(token);
    ++generation.decode_steps;
  }
  generation.decode_ms = MillisecondsBetween(decode_start, executorch::runtime::pal_current_ticks());
  return generation;
}

}  // namespace pteforge
