// transcribe: speech to text with a Whisper program exported by pteforge.seq2seq
// (`pteforge-export --hf_seq2seq=WHISPER_FOLDER`); the program carries the tokenizer and
// the generation settings, the log-mel features are computed here (cc/whisper).
//
//   transcribe --model=whisper.pte speech.wav [more.wav ...]    one line of text per file
//
// Input: 16-bit PCM mono WAV at 16 kHz (cc/vad/wav.h). Audio longer than the encoder's
// window (30 s for Whisper's models) is transcribed in consecutive windows and the
// texts joined. Flags: --model (required), --language (default en), --task (transcribe
// or translate), --beams, --max_length, --threads, --print_ids (each window's ids after
// the prompt), --stats (one JSON line per file on stderr), --quiet, --verbose.
// A file that cannot be read gets a message on stderr and an empty line; the exit status
// is then 1. A program that is not a Whisper program: 1. Bad flags: 2.
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "cc/cli/executorch_log.h"
#include "cc/cli/flags.h"
#include "cc/llm/token_ids.h"
#include "cc/runtime/threads.h"
#include "cc/vad/wav.h"
#include "cc/whisper/transcriber.h"

namespace pteforge {
namespace {

int Fail(const std::string& message, int status) {
  std::fprintf(stderr, "transcribe: error: %s\n", message.c_str());
  return status;
}

// The samples of a WAV file at `rate` Hz (the program's front end's).
StatusOr<std::vector<float>> ReadSamples(const std::string& path, int64_t rate) {
  auto reader = WavReader::Open(path);
  if (!reader.ok()) return reader.status();
  if (reader.value()->sample_rate() != rate) {
    return Failure(Error::InvalidArgument, "%s is sampled at %d Hz; Whisper takes 16 kHz (resample it, e.g. "
                   "sox in.wav -r 16000 out.wav)", path.c_str(), reader.value()->sample_rate());
  }
  std::vector<float> samples;
  Status read = reader.value()->Read(static_cast<size_t>(reader.value()->samples()), &samples);
  if (!read.ok()) return read;
  return samples;
}

int Main(int argc, char** argv) {
  Flags flags;
  flags.Define("model", "the Whisper .pte (pteforge-export --hf_seq2seq)");
  flags.Define("language", "the spoken language's token, <|xx|> (multilingual models)", "en");
  flags.Define("task", "transcribe, or translate (into English)", "transcribe");
  flags.Define("beams", "beam search width; 1 = greedy (default: the model's setting)", "0");
  flags.Define("max_length", "most decoder tokens per window, prompt included (default: the model's)", "0");
  flags.Define("threads", "threads for the kernels and XNNPACK", "1");
  flags.DefineSwitch("print_ids", "print each window's generated token ids too");
  flags.DefineSwitch("stats", "print timings per file as JSON on stderr");
  flags.DefineSwitch("quiet", "no banner (the model, language, task and beams) on stderr");
  flags.DefineSwitch("verbose", "show ExecuTorch's own log lines (default: its errors only)");
  flags.DefineSwitch("help", "show this help");
  Status parsed = flags.Parse(argc, argv);
  if (!parsed.ok()) return Fail(parsed.message(), 2);
  RouteExecutorchLog(flags.IsSet("verbose"));
  if (flags.IsSet("help")) {
    std::printf("usage: %s --model=whisper.pte [flags] speech.wav ...\n%s", argv[0], flags.Help().c_str());
    return 0;
  }
  auto beams = flags.GetInt("beams", 0, 64);
  auto max_length = flags.GetInt("max_length", 0, 1 << 20);
  auto threads = flags.GetInt("threads", 1, 256);
  for (const auto* value : {&beams, &max_length, &threads}) {
    if (!value->ok()) return Fail(value->status().message(), 2);
  }
  if (!flags.IsSet("model")) return Fail("--model is required (a Whisper program: pteforge-export --hf_seq2seq)", 2);
  if (flags.positional().empty()) return Fail("give one or more WAV files", 2);
  if (flags.IsSet("threads")) {
    Status set = SetThreadCount(static_cast<uint32_t>(threads.value()));
    if (!set.ok()) return Fail(set.message(), 1);
  }
  auto transcriber = Transcriber::Open(flags.Get("model"));
  if (!transcriber.ok()) return Fail(transcriber.status().message(), 1);
  TranscribeOptions options;
  options.language = flags.Get("language");
  options.task = flags.Get("task");
  options.beams = static_cast<int>(beams.value());
  options.max_length = max_length.value();
  if (!flags.IsSet("quiet")) {
    const auto& info = transcriber.value()->info();
    std::fprintf(stderr, "transcribe: %s, %s, %s, %d beam(s)\n", info.model_type.c_str(), options.language.c_str(),
                 options.task.c_str(), options.beams > 0 ? options.beams : info.defaults.beams);
  }
  int failures = 0;
  for (const std::string& path : flags.positional()) {
    auto samples = ReadSamples(path, transcriber.value()->sampling_rate());
    if (!samples.ok()) {
      std::fprintf(stderr, "transcribe: %s\n", samples.status().message().c_str());
      std::printf("\n");
      ++failures;
      continue;
    }
    auto start = std::chrono::steady_clock::now();
    auto result = transcriber.value()->Transcribe(samples.value(), options);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (!result.ok()) {
      // Bad options or a failing program: the same for every file.
      return Fail(path + ": " + result.status().message(), 1);
    }
    std::printf("%s\n", result->text.c_str());
    if (flags.IsSet("print_ids")) {
      for (const auto& ids : result->ids) std::printf("  ids: %s\n", FormatTokenIds(ids).c_str());
    }
    std::fflush(stdout);
    if (flags.IsSet("stats")) {
      std::fprintf(stderr, "{\"file\": \"%s\", \"seconds\": %.3f, \"windows\": %zu, \"ms\": %.3f}\n", path.c_str(),
                   samples->size() / static_cast<double>(transcriber.value()->sampling_rate()), result->ids.size(), ms);
    }
  }
  return failures > 0 ? 1 : 0;
}

}  // namespace
}  // namespace pteforge

int main(int argc, char** argv) { return pteforge::Main(argc, argv); }
