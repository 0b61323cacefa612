// translate: translate text with a translation .pte (models/bergamot, models/opus, or any
// Hugging Face text-to-text model exported by pteforge.seq2seq: T5, BART, Marian,
// M2M100); the .pte says which model family it is and carries its tokenizer and settings.
//
//   translate "Hello world." "How are you?"     sentences as arguments
//   translate < input.txt                       or one sentence per line on stdin
//   translate --paragraphs < input.txt          each line a paragraph of sentences
//   translate --document < input.txt            all of stdin one document
//
// Inputs read, split, translated and printed: cc/seq2seq/translation_job.h; --workers:
// cc/seq2seq/translator_pool.h. One source, several binaries (cc/tools/BUILD.bazel), each
// with a default model built next to it: translate (Bergamot en->pt), translate_pt_en,
// opus_translate (OPUS-MT en->fr). A sentence that cannot be translated (empty, invalid
// UTF-8) gets a message on stderr and an empty output line; the exit status is then 1.
#include <cstdio>
#include <iostream>
#include <string>

#include "cc/cli/default_model.h"
#include "cc/cli/profile.h"
#include "cc/cli/runtime_tool.h"
#include "cc/seq2seq/translation_job.h"
#include "cc/seq2seq/translator_pool.h"

namespace pteforge {
namespace {

void DefineFlags(Flags& flags) {
  flags.Define("model", "the translation .pte (default: " PTEFORGE_DEFAULT_MODEL ")");
  flags.Define("beams", "beam search width; 1 = greedy (default: the model's setting)", "0");
  flags.Define("max_length", "most tokens per translation, start token included (default: the model's)", "0");
  flags.Define("batch_size", "sentences translated together (default: as many as fit)", "0");
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
}

// The search options the flags give (the model's own where a flag says 0).
StatusOr<TranslateOptions> ReadTranslateOptions(const Flags& flags) {
  auto beams = flags.GetInt("beams", 0, 64);
  auto max_length = flags.GetInt("max_length", 0, 1 << 20);
  auto batch_size = flags.GetInt("batch_size", 0, 1 << 20);
  auto min_length = flags.GetInt("min_length", 0, 1 << 20);
  for (const auto* value : {&beams, &max_length, &batch_size, &min_length}) {
    if (!value->ok()) return value->status();
  }
  TranslateOptions options;
  options.beams = static_cast<int>(beams.value());
  options.max_length = max_length.value();
  options.batch_size = static_cast<int>(batch_size.value());
  options.min_length = min_length.value();
  options.prefix = flags.Get("prefix");
  return options;
}

// What is translated, from which input, printed how: the flags' contradictions refused.
StatusOr<TranslationJobOptions> ReadJobOptions(const Flags& flags, const std::string& program, int64_t workers) {
  TranslationJobOptions job;
  job.program = program;
  job.stats = flags.IsSet("stats");
  job.print_ids = flags.IsSet("print_ids");
  job.from_stdin = flags.positional().empty();
  const bool document = flags.IsSet("document"), paragraphs = flags.IsSet("paragraphs");
  using Input = TranslationJobOptions::Input;
  job.input = document ? Input::kDocument : paragraphs ? Input::kParagraphs : Input::kSentences;
  if (workers > 1 && (job.stats || flags.IsSet("etdump"))) {
    return Failure(Error::InvalidArgument,
                   "--workers cannot be combined with --stats or --etdump (one translator only)");
  }
  if (document && (paragraphs || !job.from_stdin)) {
    return Failure(Error::InvalidArgument, "--document reads one document from stdin: no --paragraphs, no arguments");
  }
  if ((document || paragraphs) && (job.stats || job.print_ids)) {
    return Failure(Error::InvalidArgument,
                   "--stats and --print_ids are per sentence: not with --paragraphs or --document");
  }
  return job;
}

int Main(int argc, char** argv) {
  const std::string argv0 = argv[0];
  RuntimeTool tool(argv0.substr(argv0.find_last_of('/') + 1),  // translate_pt_en, opus_translate: their own names
                   "[flags] [sentence ...]   (no sentences: read lines from stdin)");
  DefineFlags(tool.flags());
  if (auto exit_status = tool.Start(argc, argv)) return *exit_status;
  const Flags& flags = tool.flags();
  auto workers = flags.GetInt("workers", 1, 64);
  if (!workers.ok()) return tool.Fail(workers.status(), kUsageError);
  auto job_options = ReadJobOptions(flags, tool.name(), workers.value());
  if (!job_options.ok()) return tool.Fail(job_options.status(), kUsageError);
  auto options = ReadTranslateOptions(flags);
  if (!options.ok()) return tool.Fail(options.status(), kUsageError);
  std::string model = flags.IsSet("model") ? flags.Get("model") : FindDefaultModel(argv[0], PTEFORGE_DEFAULT_MODEL);
  if (model.empty()) return tool.Fail("no --model given, and no default model next to this binary", kUsageError);
  Status profiling = flags.IsSet("etdump") ? Profile::CheckAvailable() : Status();
  if (!profiling.ok()) return tool.Fail(profiling, kUsageError);

  Profile profile;
  SessionOptions session_options;
  if (flags.IsSet("etdump")) session_options.event_tracer = profile.tracer();
  auto pool = TranslatorPool::Open(model, static_cast<int>(workers.value()), session_options);
  if (!pool.ok()) return tool.Fail(pool.status());
  Translator& translator = pool.value()->first();
  if (flags.IsSet("target_token")) {
    auto id = translator.tokenizer().TokenToId(flags.Get("target_token"));
    if (!id) {
      return tool.Fail("--target_token=" + flags.Get("target_token") + ": the model's tokenizer has no such token",
                       kUsageError);
    }
    options->forced_bos_token = *id;
  }
  const TranslatorInfo& info = translator.info();
  if (!flags.IsSet("quiet")) {
    tool.Tell(info.model_name + ", " + std::to_string(options->beams > 0 ? options->beams : info.defaults.beams) +
              " beam(s)");
  }
  if (info.weights_are_random) {
    tool.Tell("WARNING: this model has UNTRAINED random weights (no OPUS-MT checkpoint was given when it was "
              "built): the output is NOT a translation. See docs/translation.md, OPUS-MT.");
  }
  if (job_options->stats) std::fprintf(stderr, "{\"load_ms\": %.3f}\n", pool.value()->load_ms());

  TranslationJob job(pool.value().get(), options.value(), job_options.value(), stdout, stderr);
  auto failures = job_options->input == TranslationJobOptions::Input::kDocument ? job.RunDocument(std::cin)
                  : job_options->from_stdin                                     ? job.RunLines(std::cin)
                                                                                : job.Run(flags.positional());
  if (!failures.ok()) return tool.Fail(failures.status());
  if (flags.IsSet("summary")) {
    std::fprintf(stderr, "{\"load_ms\": %.3f, \"translate_ms\": %.3f, \"sentences\": %zu}\n",
                 pool.value()->load_ms(), job.translate_ms(), job.sentences());
  }
  if (flags.IsSet("etdump")) {
    Status written = profile.Write(flags.Get("etdump"));
    if (!written.ok()) return tool.Fail(written);
  }
  return *failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace pteforge

int main(int argc, char** argv) { return pteforge::Main(argc, argv); }
