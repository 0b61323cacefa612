// Reading audio for Silero VAD: 16-bit PCM mono WAV files at 16 or 8 kHz, strictly.
//
// Anything else is refused with what was found and what is accepted: another sample
// format or size (8/24/32-bit, float, A-law), more than one channel, another rate. A
// file that is truncated or malformed (a chunk running past the end of the file, no
// "fmt " or "data" chunk, a size field that disagrees with the file) is an error when
// it is opened, before any sample is read, so there is never a partial result.
// Samples become floats as torchaudio reads them (x / 32768).
//
// WavReader reads the samples in pieces, so a microcontroller can stream a file
// larger than its RAM (on the Cortex-M55, the host's file through semihosting); it
// needs only stdio. Thread-compatible.
#ifndef PTEFORGE_CC_VAD_WAV_H_
#define PTEFORGE_CC_VAD_WAV_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cc/runtime/status.h"

namespace pteforge {

// The rates Silero VAD has models for.
bool IsSupportedRate(int sample_rate);

class WavReader {
 public:
  // Opens `path` and checks its whole layout; the error says what is wrong and what
  // is accepted.
  static StatusOr<std::unique_ptr<WavReader>> Open(const std::string& path);
  ~WavReader();
  WavReader(const WavReader&) = delete;
  WavReader& operator=(const WavReader&) = delete;

  int sample_rate() const { return sample_rate_; }
  int64_t samples() const { return samples_; }  // in the file
  int64_t remaining() const { return samples_ - read_; }

  // Appends up to `count` more samples to `out`; fewer only at the end of the data.
  Status Read(size_t count, std::vector<float>* out);

 private:
  WavReader() = default;

  std::string path_;
  std::FILE* file_ = nullptr;
  int sample_rate_ = 0;
  int64_t samples_ = 0;
  int64_t read_ = 0;
};

// Converts 16-bit little-endian PCM bytes (`count` samples) to floats, appending.
void AppendPcm16(const uint8_t* bytes, size_t count, std::vector<float>* samples);

}  // namespace pteforge

#endif  // PTEFORGE_CC_VAD_WAV_H_
