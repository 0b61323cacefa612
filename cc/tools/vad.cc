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

#include "cc/cli/executorch_log.h"
#include "cc/cli/flags.h"
#include "cc/runtime/threads.h"
#include "cc/vad/options.h"
#include "cc/vad/run.h"
#include "cc/vad/shared_program.h"
#include "tools/cpp/runfiles/runfiles.h"

namespace pteforge {
namespace {

int Fail(const std::string& message, int status) {
  std::fprintf(stderr, "vad: error: %s\n", message.c_str());
  return status;
}

std::string DefaultModel(const char* argv0) {
  std::string error;
  std::unique_ptr<bazel::tools::cpp::runfiles::Runfiles> runfiles(
      bazel::tools::cpp::runfiles::Runfiles::Create(argv0, &error));
  return runfiles ? runfiles->Rlocation(PTEFORGE_DEFAULT_MODEL) : "";
}

int Main(int argc, char** argv) {
  Flags flags;
  flags.Define("model", "the Silero VAD .pte (default: the one built with this binary)");
  flags.Define("stdin_rate", "read raw 16-bit mono PCM at this rate (16000 or 8000) from stdin");
  flags.Define("threads", "threads for the kernels and XNNPACK", "1");
  flags.DefineSwitch("stats", "print timings as one JSON line on stderr");
  flags.DefineSwitch("verbose", "show all of ExecuTorch's log");
  flags.DefineSwitch("help", "show this help");
  DefineVadFlags(flags);
  Status parsed = flags.Parse(argc, argv);
  if (!parsed.ok()) return Fail(parsed.message(), 2);
  if (flags.IsSet("help")) {
    std::printf("usage: vad [flags] file.wav ... | vad [flags] --stdin_rate=16000 < audio.raw\n%s",
                flags.Help().c_str());
    return 0;
  }
  auto options = ParseVadFlags(flags);
  if (!options.ok()) return Fail(options.status().message(), 2);
  auto threads = flags.GetInt("threads", 1, 256);
  if (!threads.ok()) return Fail(threads.status().message(), 2);
  const bool from_stdin = flags.IsSet("stdin_rate");
  if (from_stdin == !flags.positional().empty()) {
    return Fail(from_stdin ? "give WAV files or --stdin_rate, not both"
                           : "no input: give WAV files, or --stdin_rate=16000 to read raw PCM from stdin", 2);
  }
  int rate = 0;
  if (from_stdin) {
    auto value = flags.GetInt("stdin_rate", 8000, 16000);
    if (!value.ok() || (value.value() != 8000 && value.value() != 16000)) {
      return Fail("--stdin_rate=" + flags.Get("stdin_rate") + ": Silero VAD takes 16000 or 8000 Hz", 2);
    }
    rate = static_cast<int>(value.value());
  }

  RouteExecutorchLog(flags.IsSet("verbose"));
  Status set = SetThreadCount(static_cast<uint32_t>(threads.value()));
  if (!set.ok()) return Fail(set.message(), 2);
  std::string path = flags.IsSet("model") ? flags.Get("model") : DefaultModel(argv[0]);
  if (path.empty()) return Fail("no default model next to this binary: give --model=<silero_vad .pte>", 2);

  auto started = std::chrono::steady_clock::now();
  auto program = SharedProgram::Map(path);
  if (!program.ok()) return Fail(program.status().message(), 1);
  // The first stream's Session is what loading costs; the run opens its own.
  auto probe = program.value()->NewStream();
  if (!probe.ok()) return Fail(probe.status().message(), 1);
  double load_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  probe.value().reset();

  RunStats stats;
  Status status = from_stdin ? RunRaw(*program.value(), stdin, rate, options.value(), stdout, &stats)
                             : RunFiles(*program.value(), flags.positional(), options.value(), stdout, &stats);
  if (!status.ok()) return Fail(status.message(), 1);
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
