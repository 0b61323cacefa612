// CausalLm: token generation with a causal-LM .pte (python/pteforge/llm): `prefill` and
// `decode_step` sharing the KV cache in the program's state, its limit (max_seq_len)
// and its generation defaults (constant methods). Token ids in, token ids out: it runs
// on every target, the Cortex-M55 included; TextGenerator (text_generator.h) adds the
// tokenizer where there is one.
//
// The loop, as transformers' generate(): reset the cache, prefill the prompt (one call
// for n >= 2 tokens, decode_step for 1), then pick a token (Sampler), stop at an EOS id,
// at max_new_tokens or when prompt and generated tokens fill max_seq_len, else feed it
// to decode_step and pick the next. Continue does the same after the tokens already in
// the cache (a conversation's next turn prefills only its new tokens).
//
// Not thread-safe (one generation at a time); it owns its Session.
#ifndef PTEFORGE_CC_LLM_CAUSAL_LM_H_
#define PTEFORGE_CC_LLM_CAUSAL_LM_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cc/generate/sampler.h"
#include "cc/runtime/session.h"
#include "cc/runtime/status.h"

namespace pteforge {

// What the .pte says about itself (python/pteforge/llm/program_constants.py).
struct CausalLmInfo {
  std::string model_type;  // "llama", "qwen2", ...
  int64_t max_seq_len = 0;  // prompt and generated tokens together
  int64_t vocab_size = 0;
  int64_t bos_token = -1;  // -1: none
  std::vector<int64_t> eos_tokens;
  SamplingOptions defaults;    // the model's generation config
  int64_t max_new_tokens = 0;  // the model's default; 0: until EOS or max_seq_len
  bool has_tokenizer = false;  // a tokenizer_json constant
};

struct GenerateOptions {
  SamplingOptions sampling;
  uint64_t seed = 0;           // for sampling
  int64_t max_new_tokens = 0;  // 0: the model's default
  bool stop_at_eos = true;
  std::vector<int64_t> stop_tokens;  // more ids that end a generation (a chat's end of turn)
};

enum class StopReason { kEos, kMaxNewTokens, kMaxSeqLen };

// "eos", "max_new_tokens", "max_seq_len".
const char* StopReasonName(StopReason reason);

struct Generation {
  std::vector<int64_t> tokens;  // generated, the EOS id included when one ended it
  StopReason stop = StopReason::kEos;
  // Times on ExecuTorch's platform clock (the emulated one on a microcontroller).
  double prefill_ms = 0;      // the prompt's call
  double first_token_ms = 0;  // from the start to the first token chosen
  double decode_ms = 0;       // every decode_step and choice after the first token
  int64_t decode_steps = 0;
};

// Receives each token as soon as it is chosen (streaming output). A non-ok Status
// stops the generation and is returned by Generate.
class TokenSink {
 public:
  virtual ~TokenSink() = default;
  virtual Status OnToken(int64_t token) = 0;
};

class CausalLm {
 public:
  // Reads the program's constants and checks its entry points; `what` names the program
  // in messages. A .pte that is not a causal LM is an InvalidProgram error saying so.
  static StatusOr<std::unique_ptr<CausalLm>> Create(std::unique_ptr<Session> session, const std::string& what);

  const CausalLmInfo& info() const { return info_; }
  Session& session() { return *session_; }

  // The model's defaults (sampling, max_new_tokens), to adjust before Generate.
  GenerateOptions Defaults() const;

  // Generates from an empty cache. Errors: an empty prompt, a prompt that leaves no room
  // in max_seq_len, invalid options or token ids, a failing call.
  StatusOr<Generation> Generate(const std::vector<int64_t>& prompt, const GenerateOptions& options,
                                TokenSink* sink = nullptr);

  // Generates after the tokens in the cache: prefills `tokens` (at least one) at the
  // next position, then as Generate. The last generated token is not in the cache (no
  // step ran on it): a caller that goes on with it passes it first in the next call.
  // Errors as Generate's; `tokens` must leave room for one generated token. A failed
  // call leaves the cache as it was only if it failed before the prefill.
  StatusOr<Generation> Continue(const std::vector<int64_t>& tokens, const GenerateOptions& options,
                                TokenSink* sink = nullptr);

  // Empties the cache (a new conversation).
  Status Reset();

  // The tokens in the cache, in order (their count is the next position).
  const std::vector<int64_t>& cached_tokens() const { return cached_; }

 private:
  CausalLm() = default;
  // Runs `method` on `tokens` [1, n]; the logits [vocab_size].
  Status Run(const char* method, const std::vector<int64_t>& tokens, std::vector<float>* logits);

  std::unique_ptr<Session> session_;
  CausalLmInfo info_;
  std::vector<int64_t> cached_;  // what prefill and decode_step have written, in order
};

}  // namespace pteforge

#endif  // PTEFORGE_CC_LLM_CAUSAL_LM_H_
