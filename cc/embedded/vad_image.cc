// The Silero VAD program of a bare-metal image: streams a WAV file (the host's, read
// through semihosting) chunk by chunk through the embedded .pte, on a Session over the
// image's static memory, and prints what the vad tool prints (cc/vad/printer.h): the
// segments as they are decided and, with --probs, every chunk's probability. Then one
// line of timing on the platform clock:
//   timing: <chunks> chunks, <ns> ns in the model, <ns per chunk> ns per chunk
// Under qemu with -icount shift=0 (PTEFORGE_QEMU_ICOUNT=0) a nanosecond of that clock
// is one instruction.
//
// Arguments: --input=PATH (required) and the vad tool's segment and print flags
// (cc/vad/options.h). Exit status: 0 on success, 1 when the model or the file fails,
// 2 for bad arguments.
#include <cstdio>
#include <string>
#include <vector>

#include <executorch/runtime/platform/clock.h>
#include <executorch/runtime/platform/platform.h>

#include "cc/cli/tool.h"
#include "cc/embedded/embedded_program.h"
#include "cc/vad/options.h"
#include "cc/vad/printer.h"
#include "cc/vad/stream.h"
#include "cc/vad/vad_model.h"
#include "cc/vad/wav.h"

namespace pteforge {
namespace {

int Main(int argc, char** argv) {
  Tool tool("vad", "--input=PATH [flags]");
  Flags& flags = tool.flags();
  flags.Define("input", "the WAV file (16-bit PCM mono, 16 or 8 kHz), on the host");
  DefineVadFlags(flags);
  if (auto exit_status = tool.StartWithFlagsOnly(argc, argv)) return *exit_status;
  if (!flags.IsSet("input")) return tool.Fail("--input=PATH is required", kUsageError);
  auto options = ParseVadFlags(flags);
  if (!options.ok()) return tool.Fail(options.status(), kUsageError);
  // The file is streamed from the host a chunk at a time: it may be larger than RAM.
  auto wav = WavReader::Open(flags.Get("input"));
  if (!wav.ok()) return tool.Fail(wav.status());
  WavReader& input = *wav.value();

  auto image = OpenImageModel<VadModel>();
  if (!image.ok()) return tool.Fail(image.status());
  const EmbeddedProgram& embedded = ImageProgram();
  VadModel& model = *image->model;
  const MemoryUsage& used = model.session().memory();
  std::fprintf(stderr, "loaded %s (%zu bytes) in %.1f ms: state arena %zu B, work arena %zu B, method pool %zu of %zu B\n",
               embedded.name, embedded.size, image->load_ms, used.state_arena_bytes, used.work_arena_bytes,
               used.method_bytes, embedded.buffers.methods.size());

  auto stream = VadStream::Start(&model, input.sample_rate(), options->segments);
  if (!stream.ok()) return tool.Fail(stream.status());
  ResultPrinter printer(stdout, options->print, "");
  const size_t chunk = static_cast<size_t>(ChunkSamples(input.sample_rate()));
  std::vector<float> samples;
  samples.reserve(chunk);
  uint64_t ticks = 0;  // in the model, on the platform clock
  do {
    samples.clear();
    Status read = input.Read(chunk, &samples);
    if (!read.ok()) return tool.Fail(read);
    const bool last = input.remaining() == 0;
    et_timestamp_t start = executorch::runtime::pal_current_ticks();
    Status pushed = stream->Push(samples.data(), samples.size());
    if (pushed.ok() && last) pushed = stream->Finish();
    ticks += executorch::runtime::pal_current_ticks() - start;
    if (!pushed.ok()) return tool.Fail(pushed);
    printer.Drain(stream.value(), last);
  } while (input.remaining() > 0);
  const uint64_t ns = executorch::runtime::ticks_to_ns(ticks);
  std::fprintf(stderr, "timing: %lld chunks, %llu ns in the model, %llu ns per chunk; %s\n",
               static_cast<long long>(stream->chunks()), static_cast<unsigned long long>(ns),
               static_cast<unsigned long long>(stream->chunks() ? ns / stream->chunks() : 0),
               MemoryPeaks(embedded.heap_bytes).c_str());
  return 0;
}

}  // namespace
}  // namespace pteforge

int main(int argc, char** argv) { return pteforge::Main(argc, argv); }
