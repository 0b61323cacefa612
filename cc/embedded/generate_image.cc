// The language-model program of a bare-metal image: the embedded causal-LM .pte
// (pteforge.llm) generating on a Session over static memory (CausalLm: prefill,
// decode_step, the sampler; every choice made on the device). The tokenizer is not
// built for the microcontroller, so prompts are token ids, one prompt per line of the
// host file given with --input=PATH (read through semihosting), and each generation is
// printed as "ids: 17 89 2" with the emulated time it took. The generate tool's flags
// apply (--greedy, --sample, --seed, --max_new_tokens, ...; cc/llm/generate_flags.h).
// tests/llm/generate_cortex_m55_test.py compares the ids with the x86_64 generate tool's.
#include <cstdio>
#include <string>
#include <vector>

#include "cc/cli/tool.h"
#include "cc/embedded/embedded_program.h"
#include "cc/generate/token_ids.h"
#include "cc/llm/causal_lm.h"
#include "cc/llm/generate_flags.h"

namespace pteforge {
namespace {

int Main(int argc, char** argv) {
  Tool tool("generate", "--input=PATH [flags]");
  Flags& flags = tool.flags();
  flags.Define("input", "a host file of prompts: token ids, one prompt per line");
  DefineGenerateFlags(&flags);
  if (auto exit_status = tool.StartWithFlagsOnly(argc, argv)) return *exit_status;
  if (!flags.IsSet("input")) {
    return tool.Fail("--input=PATH (token ids, one prompt per line) is required", kUsageError);
  }
  auto prompts = ReadTokenIdLines(flags.Get("input").c_str());
  if (!prompts.ok()) return tool.Fail(prompts.status(), kUsageError);

  auto image = OpenImageModel<CausalLm>();
  if (!image.ok()) return tool.Fail(image.status());
  const EmbeddedProgram& embedded = ImageProgram();
  CausalLm& lm = *image->model;
  GenerateOptions options = lm.Defaults();
  Status applied = ApplyGenerateFlags(flags, &options);
  if (!applied.ok()) return tool.Fail(applied, kUsageError);
  const CausalLmInfo& info = lm.info();
  std::printf("loaded %s (%zu bytes, max_seq_len %lld) in %.0f ms; method pool %zu of %zu B\n", info.model_type.c_str(),
              embedded.size, static_cast<long long>(info.max_seq_len), image->load_ms,
              lm.session().memory().method_bytes, embedded.buffers.methods.size());
  for (size_t i = 0; i < prompts->size(); ++i) {
    auto generation = lm.Generate(prompts->at(i), options);
    if (!generation.ok()) {
      return tool.Fail("prompt " + std::to_string(i + 1) + ": " + generation.status().message());
    }
    const Generation& g = generation.value();
    std::printf("ids: %s\n", FormatTokenIds(g.tokens).c_str());
    std::printf("prompt %zu: %zu tokens, %zu generated (stop: %s); emulated clock: prefill %.0f ms, first token "
                "%.0f ms, %lld decode steps %.0f ms\n",
                i + 1, prompts->at(i).size(), g.tokens.size(), StopReasonName(g.stop), g.prefill_ms, g.first_token_ms,
                static_cast<long long>(g.decode_steps), g.decode_ms);
  }
  std::printf("%s\n", MemoryPeaks(embedded.heap_bytes).c_str());
  return 0;
}

}  // namespace
}  // namespace pteforge

int main(int argc, char** argv) { return pteforge::Main(argc, argv); }
