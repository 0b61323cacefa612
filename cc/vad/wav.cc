#include "cc/vad/wav.h"

#include <cstdio>
#include <cstring>

namespace pteforge {
namespace {

constexpr uint16_t kFormatPcm = 1;
constexpr uint16_t kFormatExtensible = 0xFFFE;
// KSDATAFORMAT_SUBTYPE_PCM, after its first two bytes (the format tag).
constexpr uint8_t kPcmSubformatTail[14] = {0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80,
                                           0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71};

uint16_t Le16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
uint32_t Le32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) | (static_cast<uint32_t>(p[2]) << 16) |
         (static_cast<uint32_t>(p[3]) << 24);
}

const char* FormatName(uint16_t tag) {
  switch (tag) {
    case 1: return "PCM";
    case 3: return "IEEE float";
    case 6: return "A-law";
    case 7: return "mu-law";
    case 2: return "ADPCM";
    default: return "an unknown encoding";
  }
}

constexpr const char* kAccepted = "16-bit PCM mono WAV at 16000 or 8000 Hz";

struct Format {
  uint16_t tag = 0;
  uint16_t channels = 0;
  uint32_t rate = 0;
  uint32_t byte_rate = 0;
  uint16_t block_align = 0;
  uint16_t bits = 0;
};

Status ParseFormat(const uint8_t* chunk, uint32_t size, const std::string& name, Format* format) {
  if (size < 16) return Failure(Error::InvalidArgument, "%s: the \"fmt \" chunk has %u bytes, fewer than 16", name.c_str(), size);
  format->tag = Le16(chunk);
  format->channels = Le16(chunk + 2);
  format->rate = Le32(chunk + 4);
  format->byte_rate = Le32(chunk + 8);
  format->block_align = Le16(chunk + 12);
  format->bits = Le16(chunk + 14);
  if (format->tag == kFormatExtensible) {
    // WAVE_FORMAT_EXTENSIBLE: the real encoding is the subformat GUID at offset 24.
    if (size < 40) return Failure(Error::InvalidArgument, "%s: an extensible \"fmt \" chunk of %u bytes, fewer than 40", name.c_str(), size);
    uint16_t sub = Le16(chunk + 24);
    bool guid_ok = std::memcmp(chunk + 26, kPcmSubformatTail, sizeof(kPcmSubformatTail)) == 0;
    if (!guid_ok) return Failure(Error::NotSupported, "%s: an extensible WAV whose subformat is not a standard one; accepted: %s", name.c_str(), kAccepted);
    format->tag = sub;
  }
  if (format->tag != kFormatPcm) {
    return Failure(Error::NotSupported, "%s: the samples are %s (format %u); accepted: %s", name.c_str(),
                   FormatName(format->tag), format->tag, kAccepted);
  }
  if (format->bits != 16) {
    return Failure(Error::NotSupported, "%s: %u-bit samples; accepted: %s", name.c_str(), format->bits, kAccepted);
  }
  if (format->channels != 1) {
    return Failure(Error::NotSupported, "%s: %u channels; accepted: %s (mix it down first, e.g. sox in.wav -c 1 out.wav)",
                   name.c_str(), format->channels, kAccepted);
  }
  if (!IsSupportedRate(static_cast<int>(format->rate))) {
    return Failure(Error::NotSupported, "%s: %u Hz; accepted: %s (resample it first, e.g. sox in.wav -r 16000 out.wav)",
                   name.c_str(), format->rate, kAccepted);
  }
  if (format->block_align != 2 || format->byte_rate != format->rate * 2) {
    return Failure(Error::InvalidArgument, "%s: malformed \"fmt \" chunk: block align %u and byte rate %u disagree with 16-bit mono at %u Hz",
                   name.c_str(), format->block_align, format->byte_rate, format->rate);
  }
  return Status();
}

}  // namespace

bool IsSupportedRate(int sample_rate) { return sample_rate == 16000 || sample_rate == 8000; }

void AppendPcm16(const uint8_t* bytes, size_t count, std::vector<float>* samples) {
  samples->reserve(samples->size() + count);
  for (size_t i = 0; i < count; ++i) {
    samples->push_back(static_cast<float>(static_cast<int16_t>(Le16(bytes + 2 * i))) / 32768.0f);
  }
}

StatusOr<Audio> ParseWav(const uint8_t* data, size_t size, const std::string& name) {
  if (size < 12 || std::memcmp(data, "RIFF", 4) != 0 || std::memcmp(data + 8, "WAVE", 4) != 0) {
    return Failure(Error::InvalidArgument, "%s is not a WAV file (no RIFF/WAVE header); accepted: %s", name.c_str(), kAccepted);
  }
  uint64_t riff_end = uint64_t{Le32(data + 4)} + 8;
  if (riff_end > size) {
    return Failure(Error::InvalidArgument, "%s is truncated: its header says %llu bytes, the file has %zu", name.c_str(),
                   static_cast<unsigned long long>(riff_end), size);
  }
  if (riff_end + (riff_end & 1) < size) {
    return Failure(Error::InvalidArgument, "%s: %llu bytes follow the end of its RIFF chunk (malformed or two files joined)",
                   name.c_str(), static_cast<unsigned long long>(size - riff_end));
  }
  Format format;
  bool has_format = false;
  const uint8_t* samples = nullptr;
  uint32_t sample_bytes = 0;
  uint64_t at = 12;
  while (at < riff_end) {
    if (riff_end - at < 8) return Failure(Error::InvalidArgument, "%s is malformed: %llu stray bytes at offset %llu, too few for a chunk header",
                                          name.c_str(), static_cast<unsigned long long>(riff_end - at), static_cast<unsigned long long>(at));
    const uint8_t* header = data + at;
    uint32_t chunk_size = Le32(header + 4);
    std::string id(reinterpret_cast<const char*>(header), 4);
    uint64_t body = at + 8;
    if (body + chunk_size > riff_end) {
      return Failure(Error::InvalidArgument, "%s is truncated: its \"%s\" chunk says %u bytes, %llu remain", name.c_str(),
                     id.c_str(), chunk_size, static_cast<unsigned long long>(riff_end - body));
    }
    if (id == "fmt ") {
      PTEFORGE_RETURN_IF_ERROR(ParseFormat(data + body, chunk_size, name, &format));
      has_format = true;
    } else if (id == "data") {
      if (samples != nullptr) return Failure(Error::InvalidArgument, "%s has two \"data\" chunks", name.c_str());
      samples = data + body;
      sample_bytes = chunk_size;
    }
    at = body + chunk_size + (chunk_size & 1);  // chunks are padded to even sizes
  }
  if (!has_format) return Failure(Error::InvalidArgument, "%s has no \"fmt \" chunk", name.c_str());
  if (samples == nullptr) return Failure(Error::InvalidArgument, "%s has no \"data\" chunk", name.c_str());
  if (sample_bytes % 2 != 0) {
    return Failure(Error::InvalidArgument, "%s: its \"data\" chunk has %u bytes, not a whole number of 16-bit samples",
                   name.c_str(), sample_bytes);
  }
  Audio audio;
  audio.sample_rate = static_cast<int>(format.rate);
  AppendPcm16(samples, sample_bytes / 2, &audio.samples);
  return audio;
}

StatusOr<Audio> ReadWav(const std::string& path) {
  FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return Failure(Error::AccessFailed, "cannot open %s", path.c_str());
  std::vector<uint8_t> bytes;
  uint8_t block[16384];
  size_t got;
  while ((got = std::fread(block, 1, sizeof(block), file)) > 0) bytes.insert(bytes.end(), block, block + got);
  bool failed = std::ferror(file) != 0;
  std::fclose(file);
  if (failed) return Failure(Error::AccessFailed, "cannot read %s", path.c_str());
  return ParseWav(bytes.data(), bytes.size(), path);
}

}  // namespace pteforge
