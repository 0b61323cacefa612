// The translation program of a bare-metal image: the embedded translation .pte's model
// side (TranslationModel: the generation settings, the lexical shortlist, greedy or
// beam search) on a Session over static memory. SentencePiece is not built for the
// microcontroller, so the text side stays on the host: the input is token ids, one
// sentence per line ("12 345 6 0", </s> included), read through semihosting from the
// host file given with --input=PATH; each line's generated ids are printed as
// "ids: 17 89 0", with the emulated time it took.
// tests/embedded/translate_m55_test.py tokenizes and detokenizes with the host's
// translator on the same .pte.
#include <cstdio>
#include <string>

#include "cc/cli/tool.h"
#include "cc/embedded/embedded_program.h"
#include "cc/generate/token_ids.h"
#include "cc/runtime/session.h"
#include "cc/seq2seq/translation_model.h"

namespace pteforge {
namespace {

int Main(int argc, char** argv) {
  Tool tool("translate", "--input=PATH");
  tool.flags().Define("input", "a host file of token ids, one sentence per line");
  if (auto exit_status = tool.StartWithFlagsOnly(argc, argv)) return *exit_status;
  if (!tool.flags().IsSet("input")) {
    return tool.Fail("--input=PATH (token ids, one sentence per line) is required", kUsageError);
  }
  auto sentences = ReadTokenIdLines(tool.flags().Get("input").c_str());
  if (!sentences.ok()) return tool.Fail(sentences.status(), kUsageError);
  auto image = OpenImageModel<TranslationModel>();
  if (!image.ok()) return tool.Fail(image.status());
  const EmbeddedProgram& embedded = ImageProgram();
  TranslationModel& model = *image->model;
  const TranslatorInfo& info = model.info();
  std::printf("loaded %s (%zu bytes) in %.0f ms; method pool %zu of %zu B\n", info.model_name.c_str(), embedded.size,
              image->load_ms, model.session().memory().method_bytes,
              embedded.buffers.methods.size());
  double total_ms = 0;
  for (size_t i = 0; i < sentences->size(); ++i) {
    et_timestamp_t sentence_start = executorch::runtime::pal_current_ticks();
    model.ResetStats();
    auto generated = model.Generate({sentences->at(i)}, {});
    if (!generated.ok()) {
      return tool.Fail("sentence " + std::to_string(i + 1) + ": " + generated.status().message());
    }
    double ms = MillisecondsSince(sentence_start);
    total_ms += ms;
    std::printf("ids: %s\n", FormatTokenIds(generated->at(0)).c_str());
    const TranslateStats stats = model.stats();
    std::printf("sentence %zu: %zu source tokens, %zu generated, %.0f ms (emulated clock: encode %.0f ms, "
                "%lld decoder steps %.0f ms)\n",
                i + 1, sentences->at(i).size(), generated->at(0).size(), ms, stats.encode_ms,
                static_cast<long long>(stats.steps), stats.decode_ms);
  }
  std::printf("translated %zu sentences in %.0f ms, %.0f ms per sentence (emulated clock); %s\n",
              sentences->size(), total_ms, sentences->empty() ? 0.0 : total_ms / sentences->size(),
              MemoryPeaks(embedded.heap_bytes).c_str());
  return 0;
}

}  // namespace
}  // namespace pteforge

int main(int argc, char** argv) { return pteforge::Main(argc, argv); }
