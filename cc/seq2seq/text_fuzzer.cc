// libFuzzer target: arbitrary bytes as the text of a line for the translator.
//
// Each input is split at newlines as translate splits stdin, and the lines go to
// Translator::Translate together (invalid UTF-8, control characters, very long lines,
// blank lines). Per-line errors are fine; a crash, a sanitizer report, a leak, a hang
// or a failure of the whole batch is a bug. The model is given with --model=PATH
// (libFuzzer passes flags starting with "--" through): a tiny one keeps runs fast.

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "cc/seq2seq/translator.h"

namespace {

std::unique_ptr<pteforge::Translator> g_translator;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  std::string model;
  for (int i = 1; i < *argc; ++i) {
    if (std::strncmp((*argv)[i], "--model=", 8) == 0) model = (*argv)[i] + 8;
  }
  if (model.empty()) {
    std::fprintf(stderr, "text_fuzzer: give the translation model with --model=PATH\n");
    std::exit(2);
  }
  auto translator = pteforge::Translator::Open(model);
  if (!translator.ok()) {
    std::fprintf(stderr, "text_fuzzer: %s\n", translator.status().message().c_str());
    std::exit(2);
  }
  g_translator = std::move(translator.value());
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> lines(1);
  for (size_t i = 0; i < size; ++i) {
    if (data[i] == '\n') {
      lines.emplace_back();
    } else {
      lines.back().push_back(static_cast<char>(data[i]));
    }
  }
  pteforge::TranslateOptions options;
  options.max_length = 4;  // the text's handling is under test, not long decoding
  auto results = g_translator->Translate(lines, options);
  if (!results.ok() || results->size() != lines.size()) std::abort();
  return 0;
}
