// tokenize: encodes a text with a tokenizer.json and prints the ids, for debugging a
// tokenizer against Python's (`tokenizers.Tokenizer.from_file(f).encode(text).ids`).
//
//   bazel-bin/cc/llm/tokenize --tokenizer=tokenizer.json --text="Hello world"
//       [--no_special_tokens] [--decode]
// --decode also prints the ids decoded back to text.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "cc/llm/tokenizer.h"

int main(int argc, char** argv) {
  std::string path, text;
  bool add_special_tokens = true, decode = false, have_text = false;
  for (int i = 1; i < argc; ++i) {
    const char* arg = argv[i];
    if (std::strncmp(arg, "--tokenizer=", 12) == 0) {
      path = arg + 12;
    } else if (std::strncmp(arg, "--text=", 7) == 0) {
      text = arg + 7;
      have_text = true;
    } else if (std::strcmp(arg, "--no_special_tokens") == 0) {
      add_special_tokens = false;
    } else if (std::strcmp(arg, "--decode") == 0) {
      decode = true;
    } else {
      std::fprintf(stderr, "tokenize: unknown argument '%s'\n", arg);
      return 2;
    }
  }
  if (path.empty() || !have_text) {
    std::fprintf(stderr, "usage: tokenize --tokenizer=tokenizer.json --text=TEXT [--no_special_tokens] [--decode]\n");
    return 2;
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    std::fprintf(stderr, "tokenize: cannot read %s\n", path.c_str());
    return 1;
  }
  std::stringstream json;
  json << file.rdbuf();
  auto tokenizer = pteforge::Tokenizer::FromJson(json.str());
  if (!tokenizer.ok()) {
    std::fprintf(stderr, "tokenize: %s\n", tokenizer.status().message().c_str());
    return 1;
  }
  auto ids = tokenizer->Encode(text, add_special_tokens);
  if (!ids.ok()) {
    std::fprintf(stderr, "tokenize: %s\n", ids.status().message().c_str());
    return 1;
  }
  for (size_t i = 0; i < ids->size(); ++i) std::printf("%s%lld", i == 0 ? "" : " ", static_cast<long long>((*ids)[i]));
  std::printf("\n");
  if (decode) {
    auto decoded = tokenizer->Decode(*ids, false);
    if (!decoded.ok()) {
      std::fprintf(stderr, "tokenize: %s\n", decoded.status().message().c_str());
      return 1;
    }
    std::printf("%s\n", decoded->c_str());
  }
  return 0;
}
