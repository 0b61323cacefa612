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
#include <cstring>
#include <string>

#include "cc/embedded/embedded_program.h"
#include "cc/llm/token_ids.h"
#include "cc/runtime/session.h"
#include "cc/translate/translation_model.h"

namespace pteforge {
namespace {

int Main(int argc, char** argv) {
  const char* input = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--input=", 8) == 0) {
      input = argv[i] + 8;
    } else {
      std::fprintf(stderr, "translate: error: unknown argument '%s' (expected --input=PATH)\n", argv[i]);
      return 2;
    }
  }
  if (input == nullptr) {
    std::fprintf(stderr, "translate: error: --input=PATH (token ids, one sentence per line) is required\n");
    return 2;
  }
  auto sentences = ReadTokenIdLines(input);
  if (!sentences.ok()) {
    std::fprintf(stderr, "translate: error: %s\n", sentences.status().message().c_str());
    return 2;
  }
  auto image = OpenImageProgram();
  if (!image.ok()) {
    std::fprintf(stderr, "translate: error: %s\n", image.status().message().c_str());
    return 1;
  }
  const EmbeddedProgram& embedded = ImageProgram();
  et_timestamp_t start = executorch::runtime::pal_current_ticks();
  auto model = TranslationModel::Create(std::move(image->session), embedded.name);
  if (!model.ok()) {
    std::fprintf(stderr, "translate: error: %s\n", model.status().message().c_str());
    return 1;
  }
  const TranslatorInfo& info = model.value()->info();
  std::printf("loaded %s (%zu bytes) in %.0f ms; method pool %zu of %zu B\n", info.model_name.c_str(), embedded.size,
              image->load_ms + MillisecondsSince(start), model.value()->session().memory().method_bytes,
              embedded.buffers.methods.size());
  double total_ms = 0;
  for (size_t i = 0; i < sentences->size(); ++i) {
    et_timestamp_t sentence_start = executorch::runtime::pal_current_ticks();
    model.value()->ResetStats();
    auto generated = model.value()->Generate({sentences->at(i)}, {});
    if (!generated.ok()) {
      std::fprintf(stderr, "translate: error: sentence %zu: %s\n", i + 1, generated.status().message().c_str());
      return 1;
    }
    double ms = MillisecondsSince(sentence_start);
    total_ms += ms;
    std::printf("ids: %s\n", FormatTokenIds(generated->at(0)).c_str());
    const TranslateStats stats = model.value()->stats();
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
