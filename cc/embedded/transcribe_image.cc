// The Whisper program of a bare-metal image: audio in, token ids out. Streams a 16 kHz
// WAV file (the host's, through semihosting) one encoder window at a time, computes the
// window's log-mel features on the device (cc/whisper/log_mel.h), encodes it and runs
// the program's search (WhisperModel) with Whisper's decoder prompt. The tokenizer
// stays on the host: --prompt names a host file whose line holds the prompt's ids after
// the start token (the language, task and <|notimestamps|> tokens), and the output is
// each window's generated ids, "ids: 17 89 0", then a line of timing on the emulated
// clock. (A file, as semihosting passes no spaces in arguments.) tests/seq2seq/transcribe_cortex_m55_test.py
// compares them with the x86_64 transcribe tool's on the same .pte and file.
//
// Arguments: --input=PATH (required), --prompt=PATH (a file of one line of ids; without
// it, no prompt: English-only models), --beams=N (default: the model's). Exit status: 0 on success, 1 when the
// model or the file fails, 2 for bad arguments.
#include <cstdio>
#include <string>
#include <vector>

#include <executorch/runtime/platform/platform.h>

#include "cc/cli/tool.h"
#include "cc/embedded/embedded_program.h"
#include "cc/generate/search.h"
#include "cc/generate/token_ids.h"
#include "cc/vad/wav.h"
#include "cc/whisper/log_mel.h"
#include "cc/whisper/whisper_model.h"

namespace pteforge {
namespace {

int Main(int argc, char** argv) {
  Tool tool("transcribe", "--input=PATH [flags]");
  Flags& flags = tool.flags();
  flags.Define("input", "the WAV file (16-bit PCM mono, 16 kHz), on the host");
  flags.Define("prompt", "a host file: the decoder prompt's ids after the start token, on one line");
  flags.Define("beams", "beam search width; 0: the model's setting", "0");
  if (auto exit_status = tool.StartWithFlagsOnly(argc, argv)) return *exit_status;
  if (!flags.IsSet("input")) return tool.Fail("--input=PATH is required", kUsageError);
  std::vector<int64_t> prompt;
  if (flags.IsSet("prompt")) {
    auto lines = ReadTokenIdLines(flags.Get("prompt").c_str());
    if (!lines.ok()) return tool.Fail("--prompt: " + lines.status().message(), kUsageError);
    if (lines->size() > 1) {
      return tool.Fail("--prompt: expected one line of ids, got " + std::to_string(lines->size()), kUsageError);
    }
    if (!lines->empty()) prompt = lines->front();
  }
  auto beams = flags.GetInt("beams", 0, 64);
  if (!beams.ok()) return tool.Fail(beams.status(), kUsageError);
  // The file is read a window at a time from the host: it may be larger than RAM.
  auto wav = WavReader::Open(flags.Get("input"));
  if (!wav.ok()) return tool.Fail(wav.status());
  WavReader& input = *wav.value();

  auto image = OpenImageModel<WhisperModel>();
  if (!image.ok()) return tool.Fail(image.status());
  const EmbeddedProgram& embedded = ImageProgram();
  WhisperModel& model = *image->model;
  const LogMelOptions& front_end = model.log_mel_options();
  if (input.sample_rate() != front_end.sampling_rate) {
    return tool.Fail(flags.Get("input") + " is sampled at " + std::to_string(input.sample_rate()) +
                     " Hz; Whisper takes 16 kHz");
  }
  SearchOptions search = model.info().defaults;
  if (beams.value() > 0) search.beams = static_cast<int>(beams.value());
  search.prompt_tokens = prompt;
  Status fits = CheckFits(search, model.info().max_rows, model.info().max_target_length);
  if (!fits.ok()) return tool.Fail(fits, kUsageError);
  const LogMel log_mel(front_end);
  std::printf("loaded %s (%zu bytes) in %.0f ms; %lld mels x %lld frames per %.2f s window; method pool %zu of %zu B\n",
              embedded.name, embedded.size, image->load_ms,
              static_cast<long long>(front_end.n_mels), static_cast<long long>(log_mel.frames()),
              static_cast<double>(front_end.window_samples) / front_end.sampling_rate,
              model.session().memory().method_bytes, embedded.buffers.methods.size());

  double features_ms = 0, total_ms = 0;
  int windows = 0;
  std::vector<float> samples;
  while (input.remaining() > 0) {
    samples.clear();
    Status read = input.Read(static_cast<size_t>(front_end.window_samples), &samples);
    if (!read.ok()) return tool.Fail(read);
    et_timestamp_t window_start = executorch::runtime::pal_current_ticks();
    const std::vector<float> features = log_mel.Compute(samples.data(), samples.size());
    features_ms += MillisecondsSince(window_start);
    auto ids = model.Generate(features, 1, search);
    if (!ids.ok()) return tool.Fail("window " + std::to_string(windows + 1) + ": " + ids.status().message());
    total_ms += MillisecondsSince(window_start);
    ++windows;
    std::printf("ids: %s\n", FormatTokenIds(ids->at(0)).c_str());
  }
  const TranslateStats& stats = model.stats();
  std::printf("transcribed %d windows in %.0f ms (emulated clock: features %.0f ms, encode %.0f ms, %lld decoder "
              "steps %.0f ms); %s\n",
              windows, total_ms, features_ms, stats.encode_ms, static_cast<long long>(stats.steps), stats.decode_ms,
              MemoryPeaks(embedded.heap_bytes).c_str());
  return 0;
}

}  // namespace
}  // namespace pteforge

int main(int argc, char** argv) { return pteforge::Main(argc, argv); }
