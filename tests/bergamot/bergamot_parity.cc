// Exact text parity with the Bergamot reference engine: translates a sentence file with
// the .pte through cc/seq2seq and compares every output line with the engine's raw
// output (engine_reference.py). Prints each mismatch and the exact-match rate per
// model; fails when a rate is below --min_match. --max_tokens keeps only sentences of
// at most that many tokens (</s> included), for emulated targets where a long
// sentence takes a minute.
//
// Usage: bergamot_parity [--limit=N] [--max_tokens=N] [--min_match=PERCENT]
//            (<model.pte> <sentences.txt> <engine.txt>)...

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "cc/cli/runtime_tool.h"
#include "cc/seq2seq/translator.h"

namespace pteforge {
namespace {

StatusOr<std::vector<std::string>> ReadLines(const std::string& path, size_t limit) {
  std::ifstream in(path);
  if (!in) return Failure(Error::InvalidArgument, "cannot read %s", path.c_str());
  std::vector<std::string> lines;
  for (std::string line; (limit == 0 || lines.size() < limit) && std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Returns the number of exact matches, or an error.
StatusOr<size_t> Compare(const std::string& model, const std::string& sentences_path, const std::string& engine_path,
                         size_t limit, size_t max_tokens, size_t* total) {
  auto all_sentences = ReadLines(sentences_path, 0);
  if (!all_sentences.ok()) return all_sentences.status();
  auto all_expected = ReadLines(engine_path, 0);
  if (!all_expected.ok()) return all_expected.status();
  if (all_sentences->size() != all_expected->size() || all_sentences->empty()) {
    return Failure(Error::InvalidArgument, "%s has %zu lines, %s %zu", sentences_path.c_str(),
                   all_sentences->size(), engine_path.c_str(), all_expected->size());
  }
  auto translator = Translator::Open(model);
  if (!translator.ok()) return translator.status();
  StatusOr<std::vector<std::string>> sentences = std::vector<std::string>(), expected = std::vector<std::string>();
  for (size_t i = 0; i < all_sentences->size() && (limit == 0 || sentences->size() < limit); ++i) {
    auto ids = translator.value()->tokenizer().Encode(all_sentences->at(i));
    if (max_tokens > 0 && ids.ok() && ids->size() > max_tokens) continue;
    sentences->push_back(all_sentences->at(i));
    expected->push_back(all_expected->at(i));
  }
  if (sentences->empty()) return Failure(Error::InvalidArgument, "no sentence of %s is selected", sentences_path.c_str());
  auto results = translator.value()->Translate(sentences.value(), {});
  if (!results.ok()) return results.status();
  size_t matches = 0;
  for (size_t i = 0; i < sentences->size(); ++i) {
    const auto& result = results->at(i);
    const std::string ours = result.ok() ? result->text : "(error: " + result.status().message() + ")";
    if (ours == expected->at(i)) {
      ++matches;
    } else {
      std::printf("MISMATCH %s line %zu\n  source: %s\n  ours:   %s\n  engine: %s\n", sentences_path.c_str(), i + 1,
                  sentences->at(i).c_str(), ours.c_str(), expected->at(i).c_str());
    }
  }
  *total = sentences->size();
  std::printf("%s: %zu of %zu translations equal the engine's exactly (%.2f%%)\n",
              translator.value()->info().model_name.c_str(), matches, *total, 100.0 * matches / *total);
  return matches;
}

int Main(int argc, char** argv) {
  RuntimeTool tool("bergamot_parity", "[flags] (<model.pte> <sentences.txt> <engine.txt>)...");
  Flags& flags = tool.flags();
  flags.Define("limit", "compare only the first N lines of each file (0: all)", "0");
  flags.Define("max_tokens", "compare only sentences of at most N tokens (0: all)", "0");
  flags.Define("min_match", "fail below this exact-match percentage", "100");
  if (auto exit_status = tool.Start(argc, argv)) return *exit_status;
  auto limit = flags.GetInt("limit", 0, 1 << 30);
  if (!limit.ok()) return tool.Fail(limit.status(), kUsageError);
  auto max_tokens = flags.GetInt("max_tokens", 0, 1 << 30);
  if (!max_tokens.ok()) return tool.Fail(max_tokens.status(), kUsageError);
  const auto& files = flags.positional();
  if (files.empty() || files.size() % 3 != 0) return tool.Fail("give files in threes (see --help)", kUsageError);
  char* end = nullptr;
  const double min_match = std::strtod(flags.Get("min_match").c_str(), &end);
  if (end == nullptr || *end != '\0' || min_match < 0 || min_match > 100) {
    return tool.Fail("--min_match=" + flags.Get("min_match") + ": expected a percentage", kUsageError);
  }
  bool ok = true;
  for (size_t i = 0; i < files.size(); i += 3) {
    size_t total = 0;
    auto matches = Compare(files[i], files[i + 1], files[i + 2], static_cast<size_t>(limit.value()),
                           static_cast<size_t>(max_tokens.value()), &total);
    if (!matches.ok()) {
      tool.Tell(files[i] + ": " + matches.status().message());
      ok = false;
    } else if (100.0 * matches.value() < min_match * total) {
      std::printf("FAILED: below %.2f%%\n", min_match);
      ok = false;
    }
  }
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace pteforge

int main(int argc, char** argv) { return pteforge::Main(argc, argv); }
