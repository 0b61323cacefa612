// Firmware for a Cortex-M55 board on the pteforge SDK, built outside Bazel (Make or
// CMake with arm-none-eabi-gcc; docs/sdk.md): Silero VAD on the program the SDK embeds
// (int8 weights on CMSIS-NN), streaming a WAV file chunk by chunk with static memory
// sized from the program's report. On the emulated board (qemu-system-arm -M
// mps3-an547) the file comes from the host through semihosting; on a real board
// replace WavReader with the microphone's samples.
//
//   firmware_vad.elf --input=speech.wav      (semihosting arguments)
//
// Prints what the vad tool prints with --probs --units=samples: "prob <chunk> <p>" per
// chunk, "<start> <end>" per speech segment, then (stderr) memory and timing. Exit
// status 0 on success, 1 when the program or the file fails, 2 for bad arguments.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <executorch/runtime/platform/clock.h>
#include <executorch/runtime/platform/platform.h>

#include "cc/embedded/embedded_program.h"
#include "cc/vad/printer.h"
#include "cc/vad/segments.h"
#include "cc/vad/stream.h"
#include "cc/vad/vad_model.h"
#include "cc/vad/wav.h"

namespace {

int Fail(const pteforge::Status& status) {
  std::fprintf(stderr, "firmware_vad: %s\n", status.ToString().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string input;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--input=", 8) == 0) {
      input = argv[i] + 8;
    } else {
      std::fprintf(stderr, "firmware_vad: unknown argument %s (usage: --input=PATH)\n", argv[i]);
      return 2;
    }
  }
  if (input.empty()) {
    std::fprintf(stderr, "firmware_vad: --input=PATH is required\n");
    return 2;
  }
  auto wav = pteforge::WavReader::Open(input);
  if (!wav.ok()) return Fail(wav.status());
  pteforge::WavReader& reader = *wav.value();

  // A Session over the embedded program and the static memory the SDK sized for it.
  auto image = pteforge::OpenImageModel<pteforge::VadModel>();
  if (!image.ok()) return Fail(image.status());
  const pteforge::EmbeddedProgram& program = pteforge::ImageProgram();
  std::fprintf(stderr, "firmware_vad: %s (%zu bytes) loaded in %.1f ms\n", program.name, program.size, image->load_ms);

  auto stream = pteforge::VadStream::Start(image->model.get(), reader.sample_rate(), pteforge::SegmentOptions());
  if (!stream.ok()) return Fail(stream.status());
  pteforge::PrintOptions print;
  print.units = pteforge::Units::kSamples;
  print.probabilities = true;
  pteforge::ResultPrinter printer(stdout, print, "");
  const size_t chunk = static_cast<size_t>(pteforge::ChunkSamples(reader.sample_rate()));
  std::vector<float> samples;
  samples.reserve(chunk);
  uint64_t ticks = 0;
  do {
    samples.clear();
    pteforge::Status read = reader.Read(chunk, &samples);
    if (!read.ok()) return Fail(read);
    const bool last = reader.remaining() == 0;
    et_timestamp_t start = executorch::runtime::pal_current_ticks();
    pteforge::Status pushed = stream->Push(samples.data(), samples.size());
    if (pushed.ok() && last) pushed = stream->Finish();
    ticks += executorch::runtime::pal_current_ticks() - start;
    if (!pushed.ok()) return Fail(pushed);
    printer.Drain(stream.value(), last);
  } while (reader.remaining() > 0);
  const uint64_t ns = executorch::runtime::ticks_to_ns(ticks);
  std::fprintf(stderr, "firmware_vad: %lld chunks, %llu ns per chunk; %s\n", static_cast<long long>(stream->chunks()),
               static_cast<unsigned long long>(stream->chunks() ? ns / stream->chunks() : 0),
               pteforge::MemoryPeaks(program.heap_bytes).c_str());
  return 0;
}
