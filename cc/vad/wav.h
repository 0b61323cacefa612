// Reading audio for Silero VAD: 16-bit PCM mono WAV files at 16 or 8 kHz, strictly.
//
// Anything else is refused with what was found and what is accepted: another sample
// format or size (8/24/32-bit, float, A-law), more than one channel, another rate. A
// file that is truncated or malformed (a chunk running past the end of the file, no
// "fmt " or "data" chunk, a size field that disagrees with the file) is an error too,
// never a partial result. Samples become floats as torchaudio reads them (x / 32768).
//
// Works on any C library with stdio (on the Cortex-M55, files are the host's, through
// semihosting). Thread-compatible.
#ifndef PTEFORGE_CC_VAD_WAV_H_
#define PTEFORGE_CC_VAD_WAV_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cc/runtime/status.h"

namespace pteforge {

struct Audio {
  int sample_rate = 0;
  std::vector<float> samples;  // mono, in [-1, 1)
};

// The rates Silero VAD has models for.
bool IsSupportedRate(int sample_rate);

// Parses a whole WAV file held in memory; `name` says which file in messages.
StatusOr<Audio> ParseWav(const uint8_t* data, size_t size, const std::string& name);
// Reads and parses the file at `path`.
StatusOr<Audio> ReadWav(const std::string& path);

// Converts 16-bit little-endian PCM bytes (`count` samples) to floats, appending.
void AppendPcm16(const uint8_t* bytes, size_t count, std::vector<float>* samples);

}  // namespace pteforge

#endif  // PTEFORGE_CC_VAD_WAV_H_
