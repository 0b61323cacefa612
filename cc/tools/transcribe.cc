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

#include "cc/cli/runtime_tool.h"
#include "cc/generate/token_ids.h"
#include "cc/vad/wav.h"
#include "cc/whisper/transcriber.h"

namespace pteforge {
namespace {

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
  RuntimeTool tool("transcribe", "--model=whisper.pte [flags] speech.wav ...");
  Flags& flags = tool.flags();
  flags.Define("model", "the Whisper .pte (pteforge-export --hf_seq2seq)");
  flags.Define("language", "the spoken language's token, <|xx|> (multilingual models)", "en");
  flags.Define("task", "transcribe, or translate (into English)", "transcribe");
  flags.Define("beams", "beam search width; 1 = greedy (default: the model's setting)", "0");
  flags.Define("max_length", "most decoder tokens per window, prompt included (default: the model's)", "0");
  flags.DefineSwitch("print_ids", "print each window's generated token ids too");
  flags.DefineSwitch("stats", "print timings per file as JSON on stderr");
  flags.DefineSwitch("quiet", "no banner (the model, language, task and beams) on stderr");
  if (auto exit_status = tool.Start(argc, argv)) return *exit_status;
  auto beams = flags.GetInt("beams", 0, 64);
  if (!beams.ok()) return tool.Fail(beams.status(), kUsageError);
  auto max_length = flags.GetInt("max_length", 0, 1 << 20);
  if (!max_length.ok()) return tool.Fail(max_length.status(), kUsageError);
  if (!flags.IsSet("model")) {
    return tool.Fail("--model is required (a Whisper program: pteforge-export --hf_seq2seq)", kUsageError);
  }
  if (flags.positional().empty()) return tool.Fail("give one or more WAV files", kUsageError);
  auto transcriber = Transcriber::Open(flags.Get("model"));
  if (!transcriber.ok()) return tool.Fail(transcriber.status());
  TranscribeOptions options;
  options.language = flags.Get("language");
  options.task = flags.Get("task");
  options.beams = static_cast<int>(beams.value());
  options.max_length = max_length.value();
  if (!flags.IsSet("quiet")) {
    const auto& info = transcriber.value()->info();
    tool.Tell(info.model_type + ", " + options.language + ", " + options.task + ", " +
              std::to_string(options.beams > 0 ? options.beams : info.defaults.beams) + " beam(s)");
  }
  int failures = 0;
  for (const std::string& path : flags.positional()) {
    auto samples = ReadSamples(path, transcriber.value()->sampling_rate());
    if (!samples.ok()) {
      tool.Tell(samples.status().message());
      std::printf("\n");
      ++failures;
      continue;
    }
    auto start = std::chrono::steady_clock::now();
    auto result = transcriber.value()->Transcribe(samples.value(), options);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (!result.ok()) {
      // Bad options or a failing program: the same for every file.
      return tool.Fail(path + ": " + result.status().message());
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
