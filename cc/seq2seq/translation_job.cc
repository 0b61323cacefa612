#include "cc/seq2seq/translation_job.h"

#include <chrono>
#include <iterator>
#include <utility>

#include "cc/generate/token_ids.h"

namespace pteforge {
namespace {

double MillisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

TranslationJob::TranslationJob(TranslatorPool* pool, TranslateOptions translate, TranslationJobOptions options,
                               std::FILE* out, std::FILE* err)
    : pool_(pool), translate_(std::move(translate)), options_(std::move(options)), out_(out), err_(err) {}

StatusOr<int> TranslationJob::Run(const std::vector<std::string>& inputs, size_t first) {
  // What is translated: the inputs themselves, or their sentences.
  std::vector<SplitText> splits;
  std::vector<std::string> texts;
  if (options_.input != TranslationJobOptions::Input::kSentences) {
    for (const std::string& input : inputs) {
      splits.push_back(SplitSentences(input));
      texts.insert(texts.end(), splits.back().sentences.begin(), splits.back().sentences.end());
    }
  } else {
    texts = inputs;
  }
  const auto start = std::chrono::steady_clock::now();
  auto results = options_.stats ? TranslateTimingEach(texts) : pool_->Translate(texts, translate_);
  if (!results.ok()) return results.status();
  translate_ms_ += MillisecondsSince(start);
  sentences_ += texts.size();
  return splits.empty() ? PrintSentences(*results, first) : PrintSplit(inputs, splits, *results, first);
}

StatusOr<int> TranslationJob::RunLines(std::istream& in) {
  std::vector<std::string> block;
  size_t first = 0;
  int failures = 0;
  for (std::string line; std::getline(in, line);) {
    block.push_back(std::move(line));
    if (block.size() < kBlockLines) continue;
    auto more = Run(block, first);
    if (!more.ok()) return more;
    failures += *more;
    first += block.size();
    block.clear();
  }
  if (block.empty()) return failures;
  auto more = Run(block, first);
  if (!more.ok()) return more;
  return failures + *more;
}

StatusOr<int> TranslationJob::RunDocument(std::istream& in) {
  return Run({std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>())});
}

StatusOr<std::vector<StatusOr<Translation>>> TranslationJob::TranslateTimingEach(
    const std::vector<std::string>& texts) {
  std::vector<StatusOr<Translation>> results;
  Translator& translator = pool_->first();
  for (const std::string& sentence : texts) {
    translator.ResetStats();
    const auto start = std::chrono::steady_clock::now();
    auto one = translator.Translate({sentence}, translate_);
    if (!one.ok()) return one.status();
    const double ms = MillisecondsSince(start);
    const TranslateStats stats = translator.stats();
    const auto& result = one->at(0);
    std::fprintf(err_,
                 "{\"source_tokens\": %zu, \"generated_tokens\": %zu, \"ms\": %.3f, \"encode_ms\": %.3f, "
                 "\"decode_ms\": %.3f, \"steps\": %lld}\n",
                 result.ok() ? result->source_ids.size() : 0, result.ok() ? result->ids.size() : 0, ms,
                 stats.encode_ms, stats.decode_ms, static_cast<long long>(stats.steps));
    results.push_back(std::move(one->at(0)));
  }
  return results;
}

std::string TranslationJob::Where(size_t i) const {
  return std::string(options_.from_stdin ? "line " : "argument ") + std::to_string(i + 1);
}

int TranslationJob::PrintSplit(const std::vector<std::string>& inputs, const std::vector<SplitText>& splits,
                               const std::vector<StatusOr<Translation>>& results, size_t first) {
  const bool document = options_.input == TranslationJobOptions::Input::kDocument;
  int failures = 0;
  size_t next = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::vector<std::string> texts;
    for (const std::string& sentence : splits[i].sentences) {
      const auto& result = results.at(next++);
      if (!result.ok()) {
        const std::string where = document ? "" : Where(first + i) + ", ";
        std::fprintf(err_, "%s: %ssentence '%s': %s\n", options_.program.c_str(), where.c_str(), sentence.c_str(),
                     result.status().message().c_str());
        ++failures;
      }
      texts.push_back(result.ok() ? result->text : "");
    }
    const std::string text = Reassemble(splits[i], texts);
    if (document) {
      if (failures == 0) std::fwrite(text.data(), 1, text.size(), out_);  // never a partial document
    } else {
      std::fprintf(out_, "%s\n", text.c_str());
    }
  }
  std::fflush(out_);
  return failures;
}

int TranslationJob::PrintSentences(const std::vector<StatusOr<Translation>>& results, size_t first) {
  int failures = 0;
  for (size_t i = 0; i < results.size(); ++i) {
    const auto& result = results[i];
    if (!result.ok()) {
      std::fprintf(err_, "%s: %s: %s\n", options_.program.c_str(), Where(first + i).c_str(),
                   result.status().message().c_str());
      std::fprintf(out_, "\n");  // keeps output lines aligned with input lines
      ++failures;
      continue;
    }
    std::fprintf(out_, "%s\n", result->text.c_str());
    if (options_.print_ids) {
      std::fprintf(out_, "  source ids: %s\n  output ids: %s\n", FormatTokenIds(result->source_ids).c_str(),
                   FormatTokenIds(result->ids).c_str());
    }
  }
  std::fflush(out_);
  return failures;
}

}  // namespace pteforge
