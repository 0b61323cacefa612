// libFuzzer target: arbitrary bytes as a WAV file for the vad tool's reader.
//
// The bytes are written to a file (WavReader reads files, as the tool and the
// Cortex-M55 image do) and, when it opens, read to the end in pieces of a chunk. A
// refusal is fine; a crash, a sanitizer report, a leak or a hang is a bug, and so is a
// reader that accepts a file and then cannot read the samples it promised.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>
#include <string>
#include <vector>

#include "cc/vad/wav.h"

namespace {

std::string ScratchPath() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/wav_fuzzer." + std::to_string(getpid()) + ".wav";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = ScratchPath();
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) std::abort();
  if (size > 0 && std::fwrite(data, 1, size, file) != size) std::abort();
  std::fclose(file);
  auto reader = pteforge::WavReader::Open(path);
  if (!reader.ok()) return 0;
  std::vector<float> samples;
  while ((*reader)->remaining() > 0) {
    samples.clear();
    pteforge::Status read = (*reader)->Read(512, &samples);
    // Open checked the layout: every sample it counted must be there.
    if (!read.ok() || samples.empty()) std::abort();
  }
  return 0;
}
