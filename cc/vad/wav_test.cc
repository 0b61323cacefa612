#include "cc/vad/wav.h"

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace pteforge {
namespace {

void Put16(std::vector<uint8_t>& out, uint32_t v) {
  out.push_back(v & 0xFF);
  out.push_back((v >> 8) & 0xFF);
}
void Put32(std::vector<uint8_t>& out, uint32_t v) {
  Put16(out, v & 0xFFFF);
  Put16(out, v >> 16);
}
void PutId(std::vector<uint8_t>& out, const char* id) { out.insert(out.end(), id, id + 4); }

struct WavSpec {
  uint16_t tag = 1;
  uint16_t channels = 1;
  uint32_t rate = 16000;
  uint16_t bits = 16;
  std::vector<int16_t> samples = {0, 16384, -32768, 32767, -1};
  bool extensible = false;
  bool list_chunk = false;  // an odd-sized chunk before the data (padding byte)
};

std::vector<uint8_t> MakeWav(const WavSpec& spec) {
  std::vector<uint8_t> body;
  PutId(body, "WAVE");
  PutId(body, "fmt ");
  uint16_t align = static_cast<uint16_t>(spec.channels * spec.bits / 8);
  Put32(body, spec.extensible ? 40 : 16);
  Put16(body, spec.extensible ? 0xFFFE : spec.tag);
  Put16(body, spec.channels);
  Put32(body, spec.rate);
  Put32(body, spec.rate * align);
  Put16(body, align);
  Put16(body, spec.bits);
  if (spec.extensible) {
    Put16(body, 22);           // cbSize
    Put16(body, spec.bits);    // valid bits
    Put32(body, 4);            // channel mask
    Put16(body, spec.tag);     // subformat GUID: the tag, then the standard tail
    const uint8_t tail[14] = {0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71};
    body.insert(body.end(), tail, tail + 14);
  }
  if (spec.list_chunk) {
    PutId(body, "LIST");
    Put32(body, 3);
    body.insert(body.end(), {'a', 'b', 'c', 0});  // 3 bytes + the padding byte
  }
  PutId(body, "data");
  Put32(body, static_cast<uint32_t>(spec.samples.size() * 2));
  for (int16_t s : spec.samples) Put16(body, static_cast<uint16_t>(s));
  std::vector<uint8_t> file;
  PutId(file, "RIFF");
  Put32(file, static_cast<uint32_t>(body.size()));
  file.insert(file.end(), body.begin(), body.end());
  return file;
}

struct Audio {
  int sample_rate = 0;
  std::vector<float> samples;
};

// Every sample of the file at `path`.
StatusOr<Audio> ReadAll(const std::string& path) {
  auto reader = WavReader::Open(path);
  if (!reader.ok()) return reader.status();
  Audio audio;
  audio.sample_rate = reader.value()->sample_rate();
  Status read = reader.value()->Read(static_cast<size_t>(reader.value()->samples()), &audio.samples);
  if (!read.ok()) return read;
  return audio;
}

// Writes `bytes` to a file and reads it back.
StatusOr<Audio> Parse(const std::vector<uint8_t>& bytes) {
  const std::string path = testing::TempDir() + "x.wav";
  std::FILE* file = std::fopen(path.c_str(), "wb");
  EXPECT_NE(file, nullptr);
  if (!bytes.empty()) std::fwrite(bytes.data(), 1, bytes.size(), file);
  std::fclose(file);
  return ReadAll(path);
}

// The error reading `bytes`, the file named x.wav.
std::string Error(const std::vector<uint8_t>& bytes) {
  auto audio = Parse(bytes);
  if (audio.ok()) return "(no error)";
  std::string message = audio.status().message();
  const std::string path = testing::TempDir() + "x.wav";
  for (size_t at; (at = message.find(path)) != std::string::npos;) message.replace(at, path.size(), "x.wav");
  return message;
}

TEST(WavTest, ReadsPcm16MonoAsTorchaudioDoes) {
  for (uint32_t rate : {16000u, 8000u}) {
    WavSpec spec;
    spec.rate = rate;
    auto audio = Parse(MakeWav(spec));
    ASSERT_TRUE(audio.ok()) << audio.status().message();
    EXPECT_EQ(audio->sample_rate, static_cast<int>(rate));
    EXPECT_EQ(audio->samples, (std::vector<float>{0.0f, 0.5f, -1.0f, 32767.0f / 32768.0f, -1.0f / 32768.0f}));
  }
}

TEST(WavTest, AcceptsExtensiblePcmAndSkipsOtherChunks) {
  WavSpec spec;
  spec.extensible = true;
  spec.list_chunk = true;
  auto audio = Parse(MakeWav(spec));
  ASSERT_TRUE(audio.ok()) << audio.status().message();
  EXPECT_EQ(audio->samples.size(), 5u);
}

TEST(WavTest, RefusesWhatSileroCannotTakeSayingWhatIsAccepted) {
  WavSpec stereo;
  stereo.channels = 2;
  stereo.samples = {1, 2, 3, 4};
  EXPECT_EQ(Error(MakeWav(stereo)),
            "x.wav: 2 channels; accepted: 16-bit PCM mono WAV at 16000 or 8000 Hz (mix it down first, e.g. sox "
            "in.wav -c 1 out.wav)");
  WavSpec cd;
  cd.rate = 44100;
  EXPECT_NE(Error(MakeWav(cd)).find("x.wav: 44100 Hz; accepted: 16-bit PCM mono WAV at 16000 or 8000 Hz"),
            std::string::npos);
  WavSpec wide;
  wide.bits = 24;
  EXPECT_NE(Error(MakeWav(wide)).find("24-bit samples"), std::string::npos);
  WavSpec real;
  real.tag = 3;
  real.bits = 32;
  EXPECT_NE(Error(MakeWav(real)).find("the samples are IEEE float (format 3)"), std::string::npos);
  WavSpec alaw;
  alaw.tag = 6;
  alaw.extensible = true;
  EXPECT_NE(Error(MakeWav(alaw)).find("A-law"), std::string::npos);
}

TEST(WavTest, RefusesTruncatedAndMalformedFiles) {
  std::vector<uint8_t> good = MakeWav(WavSpec());
  EXPECT_NE(Error({good.begin(), good.end() - 1}).find("is truncated: its header says 54 bytes, the file has 53"),
            std::string::npos);
  // Header sizes made consistent with a cut file: the data chunk runs past the end.
  std::vector<uint8_t> cut(good.begin(), good.end() - 2);
  cut[4] -= 2;
  EXPECT_NE(Error(cut).find("is truncated: its \"data\" chunk says 10 bytes, 8 remain"), std::string::npos);
  std::vector<uint8_t> extra = good;
  extra.insert(extra.end(), {1, 2, 3, 4});
  EXPECT_NE(Error(extra).find("4 bytes follow the end of its RIFF chunk"), std::string::npos);
  EXPECT_NE(Error({'n', 'o', 't', ' ', 'a', ' ', 'w', 'a', 'v', 'e', '!', '!'}).find("is not a WAV file"),
            std::string::npos);
  EXPECT_NE(Error({}).find("is not a WAV file"), std::string::npos);
  WavSpec odd;
  std::vector<uint8_t> odd_data = MakeWav(odd);
  odd_data[40] = 9;  // the data chunk's size: 9 bytes, 4.5 samples
  odd_data[4] -= 1;
  odd_data.pop_back();
  EXPECT_NE(Error(odd_data).find("not a whole number of 16-bit samples"), std::string::npos);
  std::vector<uint8_t> no_data(good.begin(), good.begin() + 36);
  no_data[4] = 28;
  EXPECT_EQ(Error(no_data), "x.wav has no \"data\" chunk");
}

TEST(WavTest, ReaderGivesTheSamplesInPieces) {
  ASSERT_TRUE(Parse(MakeWav(WavSpec())).ok());  // writes x.wav
  auto reader = WavReader::Open(testing::TempDir() + "x.wav");
  ASSERT_TRUE(reader.ok()) << reader.status().message();
  EXPECT_EQ(reader.value()->samples(), 5);
  std::vector<float> samples;
  ASSERT_TRUE(reader.value()->Read(2, &samples).ok());
  EXPECT_EQ(samples, (std::vector<float>{0.0f, 0.5f}));
  ASSERT_TRUE(reader.value()->Read(10, &samples).ok());
  EXPECT_EQ(samples.size(), 5u);
  EXPECT_EQ(reader.value()->remaining(), 0);
}

TEST(WavTest, SaysWhichFileCannotBeOpened) {
  auto audio = ReadAll("/nonexistent/speech.wav");
  ASSERT_FALSE(audio.ok());
  EXPECT_EQ(audio.status().message(), "cannot open /nonexistent/speech.wav");
}

}  // namespace
}  // namespace pteforge
