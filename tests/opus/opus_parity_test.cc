// Token-for-token parity with Hugging Face: the .pte through cc/seq2seq must give
// MarianTokenizer's input ids and generate()'s output ids for every case that
// hf_reference.py recorded (greedy and beam search, one sentence and batches).
//
// Usage: opus_parity_test <model.pte> <reference.txt>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cc/seq2seq/translator.h"

namespace pteforge {
namespace {

struct Case {
  int beams = 1;
  int64_t max_length = 0;
  std::vector<std::string> sentences;
  std::vector<std::vector<int64_t>> sources, outputs;
};

std::vector<int64_t> ParseIds(const std::string& text) {
  std::vector<int64_t> ids;
  std::istringstream stream(text);
  for (int64_t id; stream >> id;) ids.push_back(id);
  return ids;
}

std::string Ids(const std::vector<int64_t>& ids) {
  std::string text;
  for (int64_t id : ids) text += (text.empty() ? "" : " ") + std::to_string(id);
  return text;
}

std::vector<Case> ReadReference(const std::string& path) {
  std::vector<Case> cases;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    size_t space = line.find(' ');
    std::string kind = line.substr(0, space), rest = space == std::string::npos ? "" : line.substr(space + 1);
    if (kind == "case") {
      cases.emplace_back();
      std::istringstream(rest) >> cases.back().beams >> cases.back().max_length;
    } else if (kind == "sentence") {
      cases.back().sentences.push_back(rest);
    } else if (kind == "source") {
      cases.back().sources.push_back(ParseIds(rest));
    } else if (kind == "output") {
      cases.back().outputs.push_back(ParseIds(rest));
    }
  }
  return cases;
}

int Main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s <model.pte> <reference.txt>\n", argv[0]);
    return 2;
  }
  auto translator = Translator::Open(argv[1]);
  if (!translator.ok()) {
    std::fprintf(stderr, "cannot open %s: %s\n", argv[1], translator.status().message().c_str());
    return 1;
  }
  std::vector<Case> cases = ReadReference(argv[2]);
  if (cases.empty()) {
    std::fprintf(stderr, "no cases in %s\n", argv[2]);
    return 1;
  }
  int failures = 0, compared = 0;
  for (size_t c = 0; c < cases.size(); ++c) {
    const Case& test = cases[c];
    for (size_t i = 0; i < test.sentences.size(); ++i) {
      auto ids = translator.value()->tokenizer().Encode(test.sentences[i]);
      if (!ids.ok() || ids.value() != test.sources[i]) {
        std::fprintf(stderr, "case %zu, \"%s\": tokenizer gives [%s], Hugging Face [%s]\n", c + 1,
                     test.sentences[i].c_str(), ids.ok() ? Ids(ids.value()).c_str() : ids.status().message().c_str(),
                     Ids(test.sources[i]).c_str());
        ++failures;
      }
    }
    TranslateOptions options;
    options.beams = test.beams;
    options.max_length = test.max_length;
    auto outputs = translator.value()->Generate(test.sources, options);
    if (!outputs.ok()) {
      std::fprintf(stderr, "case %zu: %s\n", c + 1, outputs.status().message().c_str());
      ++failures;
      continue;
    }
    for (size_t i = 0; i < test.sentences.size(); ++i) {
      ++compared;
      if (outputs->at(i) != test.outputs[i]) {
        std::fprintf(stderr, "case %zu (%d beams, batch of %zu), \"%s\":\n  ours         [%s]\n  Hugging Face [%s]\n",
                     c + 1, test.beams, test.sentences.size(), test.sentences[i].c_str(), Ids(outputs->at(i)).c_str(),
                     Ids(test.outputs[i]).c_str());
        ++failures;
      }
    }
  }
  std::printf("%d of %d translations equal Hugging Face's token for token, in %zu cases\n", compared - failures,
              compared, cases.size());
  return failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace pteforge

int main(int argc, char** argv) { return pteforge::Main(argc, argv); }
