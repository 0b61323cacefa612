// translate's and generate's libraries from the SDK (pteforge::translate,
// pteforge::generate) on a program exported by pteforge.seq2seq or pteforge.llm:
//
//   text_tools translate MODEL TEXT...   each text's translation, a line each (4 beams)
//   text_tools generate MODEL PROMPT     the prompt's continuation (greedy, 16 tokens)
//
// Exit status 0 on success, 1 when the program or a call fails, 2 for bad arguments.
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "cc/cli/executorch_log.h"
#include "cc/llm/text_generator.h"
#include "cc/seq2seq/translator.h"

namespace {

int Fail(const pteforge::Status& status) {
  std::fprintf(stderr, "text_tools: %s\n", status.ToString().c_str());
  return 1;
}

// Prints the generated text as it becomes final.
class Printer : public pteforge::TextSink {
 public:
  pteforge::Status OnText(std::string_view piece) override {
    std::fwrite(piece.data(), 1, piece.size(), stdout);
    return pteforge::Status();
  }
};

int Translate(const char* model, const std::vector<std::string>& texts) {
  auto translator = pteforge::Translator::Open(model);
  if (!translator.ok()) return Fail(translator.status());
  pteforge::TranslateOptions options;
  options.beams = 4;
  auto translations = (*translator)->Translate(texts, options);
  if (!translations.ok()) return Fail(translations.status());
  for (const auto& translation : *translations) {
    if (!translation.ok()) return Fail(translation.status());
    std::printf("%s\n", translation->text.c_str());
  }
  return 0;
}

int Generate(const char* model, const std::string& prompt) {
  auto generator = pteforge::TextGenerator::Open(model);
  if (!generator.ok()) return Fail(generator.status());
  pteforge::GenerateOptions options = (*generator)->model().Defaults();
  options.sampling.do_sample = false;
  options.max_new_tokens = 16;
  auto ids = (*generator)->Encode(prompt);
  if (!ids.ok()) return Fail(ids.status());
  Printer printer;
  auto generation = (*generator)->Generate(*ids, options, &printer);
  if (!generation.ok()) return Fail(generation.status());
  std::printf("\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string kind = argc > 1 ? argv[1] : "";
  if (argc < 4 || (kind != "translate" && kind != "generate") || (kind == "generate" && argc != 4)) {
    std::fprintf(stderr, "usage: %s translate MODEL TEXT... | generate MODEL PROMPT\n", argv[0]);
    return 2;
  }
  pteforge::RouteExecutorchLog(/*verbose=*/false);
  if (kind == "generate") return Generate(argv[2], argv[3]);
  return Translate(argv[2], std::vector<std::string>(argv + 3, argv + argc));
}
