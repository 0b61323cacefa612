// tokenize: encodes a text with a tokenizer.json and prints the ids, for debugging a
// tokenizer against Python's (`tokenizers.Tokenizer.from_file(f).encode(text).ids`).
//
//   bazel-bin/cc/text/tokenize --tokenizer=tokenizer.json --text="Hello world"
//       [--no_special_tokens] [--decode]
// --decode also prints the ids decoded back to text.
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "cc/cli/tool.h"
#include "cc/text/tokenizer.h"

namespace pteforge {
namespace {

int Main(int argc, char** argv) {
  Tool tool("tokenize", "--tokenizer=tokenizer.json --text=TEXT [--no_special_tokens] [--decode]");
  Flags& flags = tool.flags();
  flags.Define("tokenizer", "the tokenizer.json");
  flags.Define("text", "the text to encode");
  flags.DefineSwitch("no_special_tokens", "encode without the special tokens the tokenizer adds");
  flags.DefineSwitch("decode", "also print the ids decoded back to text");
  if (auto exit_status = tool.StartWithFlagsOnly(argc, argv)) return *exit_status;
  if (!flags.IsSet("tokenizer") || !flags.IsSet("text")) return tool.Fail("give --tokenizer and --text", kUsageError);
  std::ifstream file(flags.Get("tokenizer"), std::ios::binary);
  if (!file) return tool.Fail("cannot read " + flags.Get("tokenizer"));
  std::stringstream json;
  json << file.rdbuf();
  auto tokenizer = Tokenizer::FromJson(json.str());
  if (!tokenizer.ok()) return tool.Fail(tokenizer.status());
  auto ids = tokenizer->Encode(flags.Get("text"), !flags.IsSet("no_special_tokens"));
  if (!ids.ok()) return tool.Fail(ids.status());
  for (size_t i = 0; i < ids->size(); ++i) std::printf("%s%lld", i == 0 ? "" : " ", static_cast<long long>((*ids)[i]));
  std::printf("\n");
  if (flags.IsSet("decode")) {
    auto decoded = tokenizer->Decode(*ids, false);
    if (!decoded.ok()) return tool.Fail(decoded.status());
    std::printf("%s\n", decoded->c_str());
  }
  return 0;
}

}  // namespace
}  // namespace pteforge

int main(int argc, char** argv) { return pteforge::Main(argc, argv); }
