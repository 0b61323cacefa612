#include "cc/vad/wav.h"

#include <algorithm>
#include <cstring>

namespace pteforge {
namespace {

constexpr uint16_t kFormatPcm = 1;
constexpr uint16_t kFormatExtensible = 0xFFFE;
// KSDATAFORMAT_SUBTYPE_PCM, after its first two bytes (the format tag).
constexpr uint8_t kPcmSubformatTail[14] = {0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80,
                                           0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71};
constexpr const char* kAccepted = "16-bit PCM mono WAV at 16000 or 8000 Hz";

// Sizes are `unsigned`, not uint32_t, because they are printed with %u (uint32_t is a
// long on Arm's newlib).
unsigned Le16(const uint8_t* p) { return p[0] | (p[1] << 8); }
unsigned Le32(const uint8_t* p) {
  return static_cast<unsigned>(p[0]) | (static_cast<unsigned>(p[1]) << 8) | (static_cast<unsigned>(p[2]) << 16) |
         (static_cast<unsigned>(p[3]) << 24);
}

const char* FormatName(unsigned tag) {
  switch (tag) {
    case 1: return "PCM";
    case 2: return "ADPCM";
    case 3: return "IEEE float";
    case 6: return "A-law";
    case 7: return "mu-law";
    default: return "an unknown encoding";
  }
}

// Checks a "fmt " chunk (its first min(size, 40) bytes); gives the rate.
Status CheckFormat(const uint8_t* chunk, unsigned size, const std::string& name, int* rate) {
  if (size < 16) return Failure(Error::InvalidArgument, "%s: the \"fmt \" chunk has %u bytes, fewer than 16", name.c_str(), size);
  unsigned tag = Le16(chunk), channels = Le16(chunk + 2), hz = Le32(chunk + 4), byte_rate = Le32(chunk + 8);
  unsigned block_align = Le16(chunk + 12), bits = Le16(chunk + 14);
  if (tag == kFormatExtensible) {
    // WAVE_FORMAT_EXTENSIBLE: the encoding is the subformat GUID at offset 24.
    if (size < 40) {
      return Failure(Error::InvalidArgument, "%s: an extensible \"fmt \" chunk of %u bytes, fewer than 40", name.c_str(), size);
    }
    if (std::memcmp(chunk + 26, kPcmSubformatTail, sizeof(kPcmSubformatTail)) != 0) {
      return Failure(Error::NotSupported, "%s: an extensible WAV with a nonstandard subformat; accepted: %s", name.c_str(), kAccepted);
    }
    tag = Le16(chunk + 24);
  }
  if (tag != kFormatPcm) {
    return Failure(Error::NotSupported, "%s: the samples are %s (format %u); accepted: %s", name.c_str(), FormatName(tag),
                   tag, kAccepted);
  }
  if (bits != 16) return Failure(Error::NotSupported, "%s: %u-bit samples; accepted: %s", name.c_str(), bits, kAccepted);
  if (channels != 1) {
    return Failure(Error::NotSupported, "%s: %u channels; accepted: %s (mix it down first, e.g. sox in.wav -c 1 out.wav)",
                   name.c_str(), channels, kAccepted);
  }
  if (!IsSupportedRate(static_cast<int>(hz))) {
    return Failure(Error::NotSupported, "%s: %u Hz; accepted: %s (resample it first, e.g. sox in.wav -r 16000 out.wav)",
                   name.c_str(), hz, kAccepted);
  }
  if (block_align != 2 || byte_rate != hz * 2) {
    return Failure(Error::InvalidArgument,
                   "%s: malformed \"fmt \" chunk: block align %u and byte rate %u disagree with 16-bit mono at %u Hz",
                   name.c_str(), block_align, byte_rate, hz);
  }
  *rate = static_cast<int>(hz);
  return Status();
}

bool ReadExactly(std::FILE* file, uint8_t* out, size_t size) { return std::fread(out, 1, size, file) == size; }

}  // namespace

bool IsSupportedRate(int sample_rate) { return sample_rate == 16000 || sample_rate == 8000; }

void AppendPcm16(const uint8_t* bytes, size_t count, std::vector<float>* samples) {
  samples->reserve(samples->size() + count);
  for (size_t i = 0; i < count; ++i) {
    samples->push_back(static_cast<float>(static_cast<int16_t>(Le16(bytes + 2 * i))) / 32768.0f);
  }
}

StatusOr<std::unique_ptr<WavReader>> WavReader::Open(const std::string& path) {
  std::unique_ptr<WavReader> reader(new WavReader());
  reader->path_ = path;
  const char* name = path.c_str();
  std::FILE* file = reader->file_ = std::fopen(name, "rb");
  if (file == nullptr) return Failure(Error::AccessFailed, "cannot open %s", name);
  long size = -1;
  if (std::fseek(file, 0, SEEK_END) == 0) size = std::ftell(file);
  if (size < 0 || std::fseek(file, 0, SEEK_SET) != 0) return Failure(Error::AccessFailed, "cannot read %s", name);

  uint8_t header[12];
  if (size < 12 || !ReadExactly(file, header, 12) || std::memcmp(header, "RIFF", 4) != 0 ||
      std::memcmp(header + 8, "WAVE", 4) != 0) {
    return Failure(Error::InvalidArgument, "%s is not a WAV file (no RIFF/WAVE header); accepted: %s", name, kAccepted);
  }
  const unsigned long long riff_end = Le32(header + 4) + 8ull;
  const unsigned long long file_size = static_cast<unsigned long long>(size);
  if (riff_end > file_size) {
    return Failure(Error::InvalidArgument, "%s is truncated: its header says %llu bytes, the file has %llu", name,
                   riff_end, file_size);
  }
  if (riff_end + (riff_end & 1) < file_size) {
    return Failure(Error::InvalidArgument, "%s: %llu bytes follow the end of its RIFF chunk (malformed or two files joined)",
                   name, file_size - riff_end);
  }
  bool has_format = false;
  unsigned long long data_at = 0, data_bytes = 0;
  bool has_data = false;
  unsigned long long at = 12;
  while (at < riff_end) {
    uint8_t chunk[8];
    if (riff_end - at < 8 || !ReadExactly(file, chunk, 8)) {
      return Failure(Error::InvalidArgument, "%s is malformed: %llu stray bytes at offset %llu, too few for a chunk header",
                     name, riff_end - at, at);
    }
    const unsigned chunk_size = Le32(chunk + 4);
    const std::string id(reinterpret_cast<const char*>(chunk), 4);
    const unsigned long long body = at + 8;
    if (body + chunk_size > riff_end) {
      return Failure(Error::InvalidArgument, "%s is truncated: its \"%s\" chunk says %u bytes, %llu remain", name, id.c_str(),
                     chunk_size, riff_end - body);
    }
    if (id == "fmt ") {
      uint8_t format[40] = {};
      size_t want = chunk_size < sizeof(format) ? chunk_size : sizeof(format);
      if (!ReadExactly(file, format, want)) return Failure(Error::AccessFailed, "cannot read %s", name);
      PTEFORGE_RETURN_IF_ERROR(CheckFormat(format, chunk_size, path, &reader->sample_rate_));
      has_format = true;
    } else if (id == "data") {
      if (has_data) return Failure(Error::InvalidArgument, "%s has two \"data\" chunks", name);
      has_data = true;
      data_at = body;
      data_bytes = chunk_size;
    }
    at = body + chunk_size + (chunk_size & 1);  // chunks are padded to even sizes
    if (at < riff_end && std::fseek(file, static_cast<long>(at), SEEK_SET) != 0) {
      return Failure(Error::AccessFailed, "cannot read %s", name);
    }
  }
  if (!has_format) return Failure(Error::InvalidArgument, "%s has no \"fmt \" chunk", name);
  if (!has_data) return Failure(Error::InvalidArgument, "%s has no \"data\" chunk", name);
  if (data_bytes % 2 != 0) {
    return Failure(Error::InvalidArgument, "%s: its \"data\" chunk has %llu bytes, not a whole number of 16-bit samples",
                   name, data_bytes);
  }
  if (std::fseek(file, static_cast<long>(data_at), SEEK_SET) != 0) return Failure(Error::AccessFailed, "cannot read %s", name);
  reader->samples_ = static_cast<int64_t>(data_bytes / 2);
  return reader;
}

WavReader::~WavReader() {
  if (file_ != nullptr) std::fclose(file_);
}

Status WavReader::Read(size_t count, std::vector<float>* out) {
  uint8_t bytes[512];  // small: the Cortex-M55 images have a 16 KB stack
  size_t left = static_cast<size_t>(std::min<int64_t>(static_cast<int64_t>(count), remaining()));
  // Once for the whole read: AppendPcm16 reserves exactly what each 256-sample piece
  // needs, which alone reallocates and copies `out` for every piece (a whole 150-s file
  // took 16 s to read that way).
  out->reserve(out->size() + left);
  while (left > 0) {
    size_t take = std::min(left, sizeof(bytes) / 2);
    if (!ReadExactly(file_, bytes, take * 2)) {
      return Failure(Error::AccessFailed, "%s: could not read its samples (was the file changed?)", path_.c_str());
    }
    AppendPcm16(bytes, take, out);
    read_ += static_cast<int64_t>(take);
    left -= take;
  }
  return Status();
}

}  // namespace pteforge
