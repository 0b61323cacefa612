// translate: translate text with a translation .pte (models/bergamot, models/opus, or any
// Hugging Face text-to-text model exported by pteforge.seq2seq: T5, BART, Marian,
// M2M100); the .pte says which model family it is and carries its tokenizer and settings.
//
//   translate "Hello world." "How are you?"     sentences as arguments
//   translate < input.txt                       or one sentence per line on stdin
//                                               (streamed: 4096 lines translated, then printed)
//   translate --paragraphs < input.txt          each line a paragraph of sentences
//   translate --document < input.txt            all of stdin one document
//
// --paragraphs and --document split the text into sentences as bergamot-translator
// does (cc/translate/sentence_splitter.h) and put the translations back with the
// text's own spacing and line breaks. A sentence longer than the model takes is
// translated in pieces, as that engine does (cc/translate/translator.h).
// One source file, several binaries (cc/tools/BUILD.bazel): each has a default model
// built next to it (PTEFORGE_DEFAULT_MODEL, a runfiles path): translate (Bergamot
// en->pt), translate_pt_en, opus_translate (OPUS-MT en->fr).
// --prefix is put before every sentence (T5's task: "translate English to French: ");
// --target_token is generated first (M2M100's, NLLB's target language: "__fr__").
// Flags: --model (default: the binary's model), --beams,
// --max_length, --batch_size, --threads, --workers, --etdump=profile.etdp, --print_ids, and for
// benchmarks --min_length, --summary (one JSON line: load and translation times) and
// --stats (one JSON line of timings per sentence on stderr, sentences then translated
// one at a time: "ms" is the whole call, text in to text out, as an interactive app
// sees it).
// A sentence that cannot be translated (empty, invalid UTF-8) gets a message on stderr
// and an empty output line (--document: no output at all); the exit status is then 1.
// Bad flags exit with 2.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cc/cli/executorch_log.h"
#include "cc/cli/flags.h"
#include "cc/cli/profile.h"
#include "cc/llm/token_ids.h"
#include "cc/runtime/threads.h"
#include "cc/translate/sentence_splitter.h"
#include "cc/translate/translator.h"
#include "tools/cpp/runfiles/runfiles.h"

namespace pteforge {
namespace {

std::string program = "translate";  // this binary's name, for messages

int Fail(const std::string& message, int status) {
  std::fprintf(stderr, "%s: error: %s\n", program.c_str(), message.c_str());
  return status;
}

std::string DefaultModel(const char* argv0) {
  std::string error;
  std::unique_ptr<bazel::tools::cpp::runfiles::Runfiles> runfiles(
      bazel::tools::cpp::runfiles::Runfiles::Create(argv0, &error));
  return runfiles ? runfiles->Rlocation(PTEFORGE_DEFAULT_MODEL) : "";
}

// Splits `sentences` into one contiguous share per translator, translated on a thread
// each; results in input order.
StatusOr<std::vector<StatusOr<Translation>>> TranslateInParallel(
    const std::vector<std::unique_ptr<Translator>>& translators, const std::vector<std::string>& sentences,
    const TranslateOptions& options) {
  const size_t n = translators.size(), share = (sentences.size() + n - 1) / n;
  std::vector<StatusOr<std::vector<StatusOr<Translation>>>> parts(n, std::vector<StatusOr<Translation>>());
  std::vector<std::thread> threads;
  for (size_t w = 0; w < n; ++w) {
    const size_t first = std::min(sentences.size(), w * share), last = std::min(sentences.size(), first + share);
    auto work = [&, w, first, last] {
      parts[w] = translators[w]->Translate({sentences.begin() + first, sentences.begin() + last}, options);
    };
    if (w + 1 == n) {
      work();  // the last share on this thread
    } else {
      threads.emplace_back(work);
    }
  }
  for (auto& thread : threads) thread.join();
  std::vector<StatusOr<Translation>> results;
  for (auto& part : parts) {
    if (!part.ok()) return part.status();
    for (auto& result : part.value()) results.push_back(std::move(result));
  }
  return results;
}

// Lines of stdin translated and printed together (see Main).
constexpr size_t kStreamBlockLines = 4096;

// Translates inputs (lines, arguments, paragraphs or one document) and prints them.
struct Job {
  const std::vector<std::unique_ptr<Translator>>& translators;
  const TranslateOptions& options;
  bool document = false, paragraphs = false, stats = false, print_ids = false, from_stdin = false;
  double translate_ms = 0;  // totals, for --summary
  size_t sentences = 0;

  // `first`: how many inputs came before these (line and argument numbers in messages).
  // Returns how many sentences could not be translated.
  StatusOr<int> Run(const std::vector<std::string>& inputs, size_t first) {
    // What is translated: the inputs themselves, or their sentences.
    std::vector<SplitText> splits;
    std::vector<std::string> texts;
    if (document || paragraphs) {
      for (const std::string& input : inputs) {
        splits.push_back(SplitSentences(input));
        texts.insert(texts.end(), splits.back().sentences.begin(), splits.back().sentences.end());
      }
    } else {
      texts = inputs;
    }
    auto start = std::chrono::steady_clock::now();
    auto results = stats ? TranslateTimingEach(texts) : TranslateInParallel(translators, texts, options);
    if (!results.ok()) return results.status();
    translate_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    sentences += texts.size();
    return splits.empty() ? PrintSentences(texts, *results, first) : PrintSplit(inputs, splits, *results, first);
  }

  // --stats: one sentence at a time, to time each.
  StatusOr<std::vector<StatusOr<Translation>>> TranslateTimingEach(const std::vector<std::string>& texts) {
    std::vector<StatusOr<Translation>> results;
    Translator& translator = *translators[0];
    for (const std::string& sentence : texts) {
      translator.ResetStats();
      auto sentence_start = std::chrono::steady_clock::now();
      auto one = translator.Translate({sentence}, options);
      if (!one.ok()) return one.status();
      const double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - sentence_start).count();
      const TranslateStats stats = translator.stats();
      const auto& result = one->at(0);
      std::fprintf(stderr,
                   "{\"source_tokens\": %zu, \"generated_tokens\": %zu, \"ms\": %.3f, \"encode_ms\": %.3f, "
                   "\"decode_ms\": %.3f, \"steps\": %lld}\n",
                   result.ok() ? result->source_ids.size() : 0, result.ok() ? result->ids.size() : 0, ms,
                   stats.encode_ms, stats.decode_ms, static_cast<long long>(stats.steps));
      results.push_back(std::move(one->at(0)));
    }
    return results;
  }

  std::string Where(size_t i) const { return std::string(from_stdin ? "line " : "argument ") + std::to_string(i + 1); }

  int PrintSplit(const std::vector<std::string>& inputs, const std::vector<SplitText>& splits,
                 const std::vector<StatusOr<Translation>>& results, size_t first) {
    int failures = 0;
    size_t next = 0;
    for (size_t i = 0; i < inputs.size(); ++i) {
      std::vector<std::string> texts;
      for (const std::string& sentence : splits[i].sentences) {
        const auto& result = results.at(next++);
        if (!result.ok()) {
          const std::string where = document ? "" : Where(first + i) + ", ";
          std::fprintf(stderr, "%s: %ssentence '%s': %s\n", program.c_str(), where.c_str(), sentence.c_str(),
                       result.status().message().c_str());
          ++failures;
        }
        texts.push_back(result.ok() ? result->text : "");
      }
      const std::string text = Reassemble(splits[i], texts);
      if (document) {
        if (failures == 0) std::fwrite(text.data(), 1, text.size(), stdout);  // never a partial document
      } else {
        std::printf("%s\n", text.c_str());
      }
    }
    std::fflush(stdout);
    return failures;
  }

  int PrintSentences(const std::vector<std::string>& texts, const std::vector<StatusOr<Translation>>& results,
                     size_t first) {
    int failures = 0;
    for (size_t i = 0; i < texts.size(); ++i) {
      const auto& result = results.at(i);
      if (!result.ok()) {
        std::fprintf(stderr, "%s: %s: %s\n", program.c_str(), Where(first + i).c_str(),
                     result.status().message().c_str());
        std::printf("\n");  // keeps output lines aligned with input lines
        ++failures;
        continue;
      }
      std::printf("%s\n", result->text.c_str());
      if (print_ids) {
        std::printf("  source ids: %s\n  output ids: %s\n", FormatTokenIds(result->source_ids).c_str(),
                    FormatTokenIds(result->ids).c_str());
      }
    }
    std::fflush(stdout);
    return failures;
  }
};

int Main(int argc, char** argv) {
  program = std::string(argv[0]).substr(std::string(argv[0]).find_last_of('/') + 1);
  Flags flags;
  flags.Define("model", "the translation .pte (default: " PTEFORGE_DEFAULT_MODEL ")");
  flags.Define("beams", "beam search width; 1 = greedy (default: the model's setting)", "0");
  flags.Define("max_length", "most tokens per translation, start token included (default: the model's)", "0");
  flags.Define("batch_size", "sentences translated together (default: as many as fit)", "0");
  flags.Define("threads", "threads for the kernels and XNNPACK", "1");
  flags.Define("workers", "translators working on separate sentences at once, each on its own thread", "1");
  flags.Define("etdump", "write an ExecuTorch profile (ETDump) to this file");
  flags.DefineSwitch("paragraphs", "each input line (or argument) is a paragraph: split into sentences and rejoined");
  flags.DefineSwitch("document", "all of stdin is one document: split into sentences, spacing and line breaks kept");
  flags.DefineSwitch("print_ids", "print the source and generated token ids too");
  flags.Define("prefix", "text put before every sentence (T5's task, e.g. \"translate English to French: \")");
  flags.Define("target_token", "a token generated first: the target language of M2M100 or NLLB (e.g. __fr__)");
  flags.Define("min_length", "no </s> before this many tokens (benchmarks: equal lengths)", "0");
  flags.DefineSwitch("stats", "print timings per sentence as JSON on stderr (one sentence at a time)");
  flags.DefineSwitch("summary", "print the load and translation times as one JSON line on stderr");
  flags.DefineSwitch("quiet", "no banner (the model and beams) on stderr");
  flags.DefineSwitch("verbose", "show ExecuTorch's own log lines (default: its errors only)");
  flags.DefineSwitch("help", "show this help");
  Status parsed = flags.Parse(argc, argv);
  if (!parsed.ok()) return Fail(parsed.message(), 2);
  RouteExecutorchLog(flags.IsSet("verbose"));
  if (flags.IsSet("help")) {
    std::printf("usage: %s [flags] [sentence ...]   (no sentences: read lines from stdin)\n%s", argv[0],
                flags.Help().c_str());
    return 0;
  }
  auto beams = flags.GetInt("beams", 0, 64);
  auto max_length = flags.GetInt("max_length", 0, 1 << 20);
  auto batch_size = flags.GetInt("batch_size", 0, 1 << 20);
  auto threads = flags.GetInt("threads", 1, 256);
  auto min_length = flags.GetInt("min_length", 0, 1 << 20);
  auto workers = flags.GetInt("workers", 1, 64);
  for (const auto* value : {&beams, &max_length, &batch_size, &threads, &min_length, &workers}) {
    if (!value->ok()) return Fail(value->status().message(), 2);
  }
  if (workers.value() > 1 && (flags.IsSet("stats") || flags.IsSet("etdump"))) {
    return Fail("--workers cannot be combined with --stats or --etdump (one translator only)", 2);
  }
  const bool document = flags.IsSet("document"), paragraphs = flags.IsSet("paragraphs");
  if (document && (paragraphs || !flags.positional().empty())) {
    return Fail("--document reads one document from stdin: no --paragraphs, no arguments", 2);
  }
  if ((document || paragraphs) && (flags.IsSet("stats") || flags.IsSet("print_ids"))) {
    return Fail("--stats and --print_ids are per sentence: not with --paragraphs or --document", 2);
  }
  std::string model = flags.IsSet("model") ? flags.Get("model") : DefaultModel(argv[0]);
  if (model.empty()) return Fail("no --model given, and no default model next to this binary", 2);
  if (flags.IsSet("threads")) {
    Status set = SetThreadCount(static_cast<uint32_t>(threads.value()));
    if (!set.ok()) return Fail(set.message(), 1);
  }

  if (workers.value() > 1) {
    Status prepared = PrepareConcurrentSessions();
    if (!prepared.ok()) return Fail(prepared.message(), 1);
  }
  Status profiling = flags.IsSet("etdump") ? Profile::CheckAvailable() : Status();
  if (!profiling.ok()) return Fail(profiling.message(), 2);
  Profile profile;
  SessionOptions session_options;
  if (flags.IsSet("etdump")) session_options.event_tracer = profile.tracer();
  auto load_start = std::chrono::steady_clock::now();
  auto translator = Translator::Open(model, session_options);
  if (!translator.ok()) return Fail(translator.status().message(), 1);
  double load_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - load_start).count();
  const TranslatorInfo& info = translator.value()->info();
  TranslateOptions options;
  options.beams = static_cast<int>(beams.value());
  options.max_length = max_length.value();
  options.batch_size = static_cast<int>(batch_size.value());
  options.min_length = min_length.value();
  options.prefix = flags.Get("prefix");
  if (flags.IsSet("target_token")) {
    auto id = translator.value()->tokenizer().TokenToId(flags.Get("target_token"));
    if (!id) {
      return Fail("--target_token=" + flags.Get("target_token") + ": the model's tokenizer has no such token", 2);
    }
    options.forced_bos_token = *id;
  }
  if (!flags.IsSet("quiet")) {
    std::fprintf(stderr, "%s: %s, %d beam(s)\n", program.c_str(), info.model_name.c_str(),
                 options.beams > 0 ? options.beams : info.defaults.beams);
  }
  if (info.weights_are_random) {
    std::fprintf(stderr,
                 "%s: WARNING: this model has UNTRAINED random weights (no OPUS-MT checkpoint was "
                 "given when it was built): the output is NOT a translation. See docs/translation.md, OPUS-MT.\n",
                 program.c_str());
  }

  std::vector<std::unique_ptr<Translator>> translators;
  translators.push_back(std::move(translator.value()));
  for (int64_t w = 1; w < workers.value(); ++w) {
    auto another = Translator::Open(model, session_options);
    if (!another.ok()) return Fail(another.status().message(), 1);
    translators.push_back(std::move(another.value()));
  }
  Job job{translators, options};
  job.document = document;
  job.paragraphs = paragraphs;
  job.stats = flags.IsSet("stats");
  job.print_ids = flags.IsSet("print_ids");
  job.from_stdin = flags.positional().empty();
  if (job.stats) std::fprintf(stderr, "{\"load_ms\": %.3f}\n", load_ms);
  StatusOr<int> failures = 0;
  if (document) {
    failures = job.Run({std::string(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>())}, 0);
  } else if (!job.from_stdin) {
    failures = job.Run(flags.positional(), 0);
  } else {
    // Lines stream through in blocks: each block is translated (sorted by length inside
    // it, as one input would be) and printed before the next is read, so memory stays
    // bounded on an input of any length and output comes as it is made.
    std::vector<std::string> block;
    size_t first = 0;
    for (std::string line; failures.ok() && std::getline(std::cin, line);) {
      block.push_back(std::move(line));
      if (block.size() == kStreamBlockLines) {
        auto more = job.Run(block, first);
        failures = more.ok() ? StatusOr<int>(*failures + *more) : more;
        first += block.size();
        block.clear();
      }
    }
    if (failures.ok() && !block.empty()) {
      auto more = job.Run(block, first);
      failures = more.ok() ? StatusOr<int>(*failures + *more) : more;
    }
  }
  if (!failures.ok()) return Fail(failures.status().message(), 1);
  if (flags.IsSet("summary")) {
    std::fprintf(stderr, "{\"load_ms\": %.3f, \"translate_ms\": %.3f, \"sentences\": %zu}\n", load_ms,
                 job.translate_ms, job.sentences);
  }
  if (flags.IsSet("etdump")) {
    Status written = profile.Write(flags.Get("etdump"));
    if (!written.ok()) return Fail(written.message(), 1);
  }
  return *failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace pteforge

int main(int argc, char** argv) { return pteforge::Main(argc, argv); }
