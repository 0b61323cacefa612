// Streams a WAV file (16-bit PCM mono, 16 or 8 kHz) through a Silero VAD program with
// pteforge's VAD library and prints what the vad tool prints with --probs
// --units=samples: every chunk's probability as it runs ("prob <chunk> <p>") and each
// speech segment as silero's get_speech_timestamps decides it ("<start> <end>").
//
//   vad_segments MODEL WAV
//
// The file is read a chunk at a time, as a device would read a microphone. Exit status
// 0 on success, 1 when the program or the file fails, 2 for bad arguments.
#include <cstdio>
#include <memory>
#include <vector>

#include "cc/cli/executorch_log.h"
#include "cc/runtime/session.h"
#include "cc/vad/printer.h"
#include "cc/vad/segments.h"
#include "cc/vad/stream.h"
#include "cc/vad/vad_model.h"
#include "cc/vad/wav.h"

namespace {

int Fail(const pteforge::Status& status) {
  std::fprintf(stderr, "vad_segments: %s\n", status.ToString().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s MODEL WAV\n", argv[0]);
    return 2;
  }
  // ExecuTorch's own log lines: its errors only (it logs info lines on every run).
  pteforge::RouteExecutorchLog(/*verbose=*/false);
  auto session = pteforge::Session::Open(argv[1]);
  if (!session.ok()) return Fail(session.status());
  auto model = pteforge::VadModel::Create(std::move(session.value()), argv[1]);
  if (!model.ok()) return Fail(model.status());
  auto wav = pteforge::WavReader::Open(argv[2]);
  if (!wav.ok()) return Fail(wav.status());
  pteforge::WavReader& input = *wav.value();

  auto stream = pteforge::VadStream::Start(model->get(), input.sample_rate(), pteforge::SegmentOptions());
  if (!stream.ok()) return Fail(stream.status());
  pteforge::PrintOptions print;
  print.units = pteforge::Units::kSamples;
  print.probabilities = true;
  pteforge::ResultPrinter printer(stdout, print, "");
  const size_t chunk = static_cast<size_t>(pteforge::ChunkSamples(input.sample_rate()));
  std::vector<float> samples;
  do {
    samples.clear();
    pteforge::Status read = input.Read(chunk, &samples);
    if (!read.ok()) return Fail(read);
    const bool last = input.remaining() == 0;
    pteforge::Status pushed = stream->Push(samples.data(), samples.size());
    if (pushed.ok() && last) pushed = stream->Finish();
    if (!pushed.ok()) return Fail(pushed);
    printer.Drain(stream.value(), last);
  } while (input.remaining() > 0);
  return 0;
}
