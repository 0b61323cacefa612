// vad: speech segments in audio with Silero VAD (models/silero_vad), exactly as
// silero's get_speech_timestamps gives them, on every Linux target.
//
//   vad speech.wav                      segments, one per line: "start end" in seconds
//   vad --units=samples a.wav b.wav     several files: one stream each on one program,
//                                       each line prefixed with its file
//   arecord -f S16_LE -r 16000 -c 1 | vad --stdin_rate=16000
//                                       a live stream: results as they are decided
//
// Input: 16-bit PCM mono WAV at 16 or 8 kHz (cc/vad/wav.h), or raw 16-bit little-endian
// mono PCM on stdin with --stdin_rate. get_speech_timestamps' parameters are flags of
// the same names (--threshold, --min_speech_duration_ms, ...; --help lists them);
// --probs also prints every chunk's probability; --stats prints timings as one JSON
// line on stderr. The default model is the float32 XNNPACK program built next to the
// binary (both rates); --model takes another (e.g. the portable or int8 one).
// Exit status: 0 on success, 1 when the model or an input fails (no output for a bad
// file), 2 for bad flags.
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "cc/cli/default_model.h"
#include "cc/cli/runtime_tool.h"
#include "cc/vad/options.h"
#include "cc/vad/run.h"
#include "cc/vad/shared_program.h"

namespace pteforge {
namespace {

int Main(int argc, char** argv) {
  RuntimeTool tool("vad", "[flags] file.wav ... | vad [flags] --stdin_rate=16000 < audio.raw", /*default_threads=*/1);
  Flags& flags = tool.flags();
  flags.Define("model", "the Silero VAD .pte (default: the one built with this binary)");
  flags.Define("stdin_rate", "read raw 16-bit mono PCM at this rate (16000 or 8000) from stdin");
  flags.DefineSwitch("stats", "print timings as one JSON line on stderr");
  DefineVadFlags(flags);
  if (auto exit_status = tool.Start(argc, argv)) return *exit_status;
  auto options = ParseVadFlags(flags);
  if (!options.ok()) return tool.Fail(options.status(), kUsageError);
  const bool from_stdin = flags.IsSet("stdin_rate");
  if (from_stdin == !flags.positional().empty()) {
    return tool.Fail(from_stdin ? "give WAV files or --stdin_rate, not both"
                                : "no input: give WAV files, or --stdin_rate=16000 to read raw PCM from stdin",
                     kUsageError);
  }
  int rate = 0;
  if (from_stdin) {
    auto value = flags.GetInt("stdin_rate", 8000, 16000);
    if (!value.ok() || (value.value() != 8000 && value.value() != 16000)) {
      return tool.Fail("--stdin_rate=" + flags.Get("stdin_rate") + ": Silero VAD takes 16000 or 8000 Hz", kUsageError);
    }
    rate = static_cast<int>(value.value());
  }
  std::string path = flags.IsSet("model") ? flags.Get("model") : FindDefaultModel(argv[0], PTEFORGE_DEFAULT_MODEL);
  if (path.empty()) {
    return tool.Fail("no default model next to this binary: give --model=<silero_vad .pte>", kUsageError);
  }

  auto started = std::chrono::steady_clock::now();
  auto program = SharedProgram::Map(path);
  if (!program.ok()) return tool.Fail(program.status());
  // The first stream's Session is what loading costs; the run opens its own.
  auto probe = program.value()->NewStream();
  if (!probe.ok()) return tool.Fail(probe.status());
  double load_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  probe.value().reset();

  RunStats stats;
  Status status = from_stdin ? RunRaw(*program.value(), stdin, rate, options.value(), stdout, &stats)
                             : RunFiles(*program.value(), flags.positional(), options.value(), stdout, &stats);
  if (!status.ok()) return tool.Fail(status);
  if (flags.IsSet("stats")) {
    double us = stats.chunks ? 1e6 * stats.model_seconds / stats.chunks : 0;
    std::fprintf(stderr,
                 "{\"load_ms\": %.3f, \"streams\": %lld, \"chunks\": %lld, \"audio_s\": %.3f, \"run_s\": %.6f, "
                 "\"us_per_chunk\": %.3f, \"real_time_factor\": %.6f}\n",
                 load_ms, static_cast<long long>(stats.streams), static_cast<long long>(stats.chunks),
                 stats.audio_seconds, stats.model_seconds, us,
                 stats.audio_seconds > 0 ? stats.model_seconds / stats.audio_seconds : 0.0);
  }
  return 0;
}

}  // namespace
}  // namespace pteforge

int main(int argc, char** argv) { return pteforge::Main(argc, argv); }
