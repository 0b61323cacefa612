// forward_loop: greedy generation with a single-method causal-LM .pte, the design
// optimum-executorch exports (transformers' TorchExportableModuleWithStaticCache:
// forward(input_ids int64[1, n], cache_position int64[n]) -> logits [1, n, vocab], the
// KV cache a mutable buffer planned with the activations), driven the way ExecuTorch's
// LLM runner drives it: the prompt in one call, then one token per call. It runs on
// pteforge's Session (the same runtime, kernels and threads as //cc/tools:generate), for
// //benchmarks:llm_bench.
//
//   forward_loop --model=single_forward.pte --ids="1 2 3" --max_new_tokens=128
//
// Prints the generated ids on stdout and one JSON line on stderr with the same fields
// as generate --stats.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cc/cli/peak_rss.h"
#include "cc/cli/runtime_tool.h"
#include "cc/generate/token_ids.h"
#include "cc/runtime/session.h"

namespace pteforge {
namespace {

using Clock = std::chrono::steady_clock;

double Milliseconds(Clock::time_point start, Clock::time_point end) {
  return std::chrono::duration<double, std::milli>(end - start).count();
}

// forward on `tokens` at positions start..; the argmax of the last position's logits.
StatusOr<int64_t> Forward(Session& session, const std::vector<int64_t>& tokens, int64_t start) {
  const int64_t n = static_cast<int64_t>(tokens.size());
  std::vector<int64_t> positions(n);
  for (int64_t i = 0; i < n; ++i) positions[i] = start + i;
  std::vector<Value> inputs;
  inputs.emplace_back(HostTensor::FromValues(ScalarType::Long, {1, n}, tokens));
  inputs.emplace_back(HostTensor::FromValues(ScalarType::Long, {n}, positions));
  auto outputs = session.Execute("forward", inputs);
  if (!outputs.ok()) return outputs.status();
  const auto* logits = std::get_if<HostTensor>(&outputs->at(0));
  if (logits == nullptr || logits->dtype != ScalarType::Float || logits->sizes.size() != 3) {
    return Failure(Error::InvalidProgram, "forward did not return float32 logits [1, n, vocab]");
  }
  const int64_t vocab = logits->sizes[2];
  const float* last = logits->data<float>() + (logits->sizes[1] - 1) * vocab;
  return static_cast<int64_t>(std::max_element(last, last + vocab) - last);
}

int Main(int argc, char** argv) {
  RuntimeTool tool("forward_loop", "--model=x.pte [flags]", /*default_threads=*/1);
  Flags& flags = tool.flags();
  flags.Define("model", "the single-forward .pte");
  flags.Define("ids", "the prompt's token ids");
  flags.Define("max_new_tokens", "tokens to generate", "128");
  if (auto exit_status = tool.StartWithFlagsOnly(argc, argv)) return *exit_status;
  auto prompt = ParseTokenIds(flags.Get("ids"));
  auto max_new_tokens = flags.GetInt("max_new_tokens", 1, 1 << 20);
  if (!prompt.ok() || prompt->empty() || !max_new_tokens.ok()) {
    return tool.Fail("--ids and --max_new_tokens are required", kUsageError);
  }

  const auto load_start = Clock::now();
  auto session = Session::Open(flags.Get("model"));
  if (!session.ok()) return tool.Fail(session.status());
  const double load_ms = Milliseconds(load_start, Clock::now());

  const auto start = Clock::now();
  auto token = Forward(*session.value(), prompt.value(), 0);
  if (!token.ok()) return tool.Fail(token.status());
  const auto first = Clock::now();
  std::vector<int64_t> generated = {token.value()};
  int64_t position = static_cast<int64_t>(prompt->size());
  while (static_cast<int64_t>(generated.size()) < max_new_tokens.value()) {
    token = Forward(*session.value(), {generated.back()}, position++);
    if (!token.ok()) return tool.Fail(token.status());
    generated.push_back(token.value());
  }
  const auto end = Clock::now();
  std::printf("%s\n", FormatTokenIds(generated).c_str());
  const MemoryUsage& memory = session.value()->memory();
  const double decode_ms = Milliseconds(first, end);
  const size_t steps = generated.size() - 1;
  std::fprintf(stderr,
               "{\"prompt_tokens\": %zu, \"generated_tokens\": %zu, \"load_ms\": %.3f, \"prefill_ms\": %.3f, "
               "\"prefill_tokens_per_s\": %.3f, \"time_to_first_token_ms\": %.3f, \"decode_ms\": %.3f, "
               "\"decode_steps\": %zu, \"decode_tokens_per_s\": %.3f, \"peak_rss_mb\": %.1f, "
               "\"planned_bytes\": %zu}\n",
               prompt->size(), generated.size(), load_ms, Milliseconds(start, first),
               prompt->size() / (Milliseconds(start, first) / 1e3), Milliseconds(start, first), decode_ms, steps,
               steps / (decode_ms / 1e3), PeakRssMegabytes(), memory.total_planned_bytes());
  return 0;
}

}  // namespace
}  // namespace pteforge

int main(int argc, char** argv) { return pteforge::Main(argc, argv); }
