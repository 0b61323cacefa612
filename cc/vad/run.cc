#include "cc/vad/run.h"

#include <chrono>
#include <memory>

#include "cc/vad/printer.h"
#include "cc/vad/stream.h"
#include "cc/vad/wav.h"

namespace pteforge {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// One stream's model, stream and printer.
struct Running {
  std::unique_ptr<VadModel> model;
  std::unique_ptr<VadStream> stream;
  std::unique_ptr<ResultPrinter> printer;
};

StatusOr<Running> StartStream(const SharedProgram& program, int sample_rate, const VadOptions& options,
                              std::FILE* out, const std::string& label) {
  Running running;
  auto model = program.NewStream();
  if (!model.ok()) return model.status();
  running.model = std::move(model.value());
  auto stream = VadStream::Start(running.model.get(), sample_rate, options.segments);
  if (!stream.ok()) {
    return Failure(stream.status().code(), "%s%s%s", label.c_str(), label.empty() ? "" : ": ",
                   stream.status().message().c_str());
  }
  running.stream = std::make_unique<VadStream>(std::move(stream.value()));
  running.printer = std::make_unique<ResultPrinter>(out, options.print, label);
  return running;
}

}  // namespace

Status RunFiles(const SharedProgram& program, const std::vector<std::string>& paths, const VadOptions& options,
                std::FILE* out, RunStats* stats) {
  // Every file's layout is checked before anything runs; the samples are then read a
  // chunk at a time, as they would arrive from microphones.
  std::vector<std::unique_ptr<WavReader>> inputs;
  for (const std::string& path : paths) {
    auto reader = WavReader::Open(path);
    if (!reader.ok()) return reader.status();
    inputs.push_back(std::move(reader.value()));
  }
  std::vector<Running> streams;
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto running = StartStream(program, inputs[i]->sample_rate(), options, out, paths.size() > 1 ? paths[i] : "");
    if (!running.ok()) return running.status();
    streams.push_back(std::move(running.value()));
  }
  // A chunk of every stream in turn, until all have ended.
  std::vector<bool> ended(inputs.size(), false);
  std::vector<float> samples;
  size_t active = inputs.size();
  Clock::time_point start = Clock::now();
  while (active > 0) {
    active = 0;
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (ended[i]) continue;
      samples.clear();
      PTEFORGE_RETURN_IF_ERROR(inputs[i]->Read(ChunkSamples(inputs[i]->sample_rate()), &samples));
      VadStream& stream = *streams[i].stream;
      PTEFORGE_RETURN_IF_ERROR(stream.Push(samples.data(), samples.size()));
      ended[i] = inputs[i]->remaining() == 0;
      if (ended[i]) PTEFORGE_RETURN_IF_ERROR(stream.Finish());
      streams[i].printer->Drain(stream, ended[i]);
      active += ended[i] ? 0 : 1;
    }
  }
  stats->model_seconds += SecondsSince(start);
  for (size_t i = 0; i < inputs.size(); ++i) {
    stats->streams += 1;
    stats->chunks += streams[i].stream->chunks();
    stats->audio_seconds += static_cast<double>(inputs[i]->samples()) / inputs[i]->sample_rate();
  }
  return Status();
}

Status RunRaw(const SharedProgram& program, std::FILE* in, int sample_rate, const VadOptions& options,
              std::FILE* out, RunStats* stats) {
  if (!IsSupportedRate(sample_rate)) {
    return Failure(Error::InvalidArgument, "--stdin_rate=%d: Silero VAD takes 16000 or 8000 Hz", sample_rate);
  }
  auto running = StartStream(program, sample_rate, options, out, "");
  if (!running.ok()) return running.status();
  VadStream& stream = *running->stream;
  // Read what is there, up to a chunk at a time, so results follow the input closely.
  std::vector<uint8_t> bytes(static_cast<size_t>(ChunkSamples(sample_rate)) * 2);
  std::vector<float> samples;
  size_t carried = 0;  // a byte of a sample split across reads
  double seconds = 0;
  size_t got;
  while ((got = std::fread(bytes.data() + carried, 1, bytes.size() - carried, in)) > 0) {
    size_t available = carried + got;
    samples.clear();
    AppendPcm16(bytes.data(), available / 2, &samples);
    carried = available % 2;
    if (carried) bytes[0] = bytes[available - 1];
    Clock::time_point start = Clock::now();
    PTEFORGE_RETURN_IF_ERROR(stream.Push(samples.data(), samples.size()));
    seconds += SecondsSince(start);
    running->printer->Drain(stream, false);
  }
  if (std::ferror(in)) return Failure(Error::AccessFailed, "cannot read stdin");
  if (carried) {
    return Failure(Error::InvalidArgument, "stdin ended in the middle of a 16-bit sample (an odd number of bytes): "
                   "expected raw 16-bit little-endian mono PCM");
  }
  Clock::time_point start = Clock::now();
  PTEFORGE_RETURN_IF_ERROR(stream.Finish());
  seconds += SecondsSince(start);
  running->printer->Drain(stream, true);
  stats->streams += 1;
  stats->chunks += stream.chunks();
  stats->audio_seconds += static_cast<double>(stream.samples()) / sample_rate;
  stats->model_seconds += seconds;
  return Status();
}

}  // namespace pteforge
