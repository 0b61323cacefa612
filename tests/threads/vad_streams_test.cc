// Many VAD streams on one shared program, each on its own thread, as a service would
// run its microphones: every stream must get exactly the probabilities it gets alone.
// SharedProgram promises that NewStream may be called from several threads and that
// the models it returns are independent; under --config=tsan this test is how that
// promise is checked (docs/runtime.md, "Threads").
//
// Arguments: a WAV file, then one or more .pte programs.
#include <algorithm>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "cc/runtime/threads.h"
#include "cc/vad/shared_program.h"
#include "cc/vad/stream.h"
#include "cc/vad/wav.h"
#include "gtest/gtest.h"

namespace pteforge {
namespace {

std::vector<std::string> g_programs;
std::vector<float> g_samples;
int g_rate = 0;

constexpr int kStreams = 4;
// Samples pushed at a time: not a multiple of any chunk, so chunks straddle pushes.
constexpr size_t kPush = 1000;

// One stream over the whole file; its probabilities, or an empty vector after a
// failure (reported by the gtest assertions in the caller's thread).
std::vector<float> RunStream(const SharedProgram& program, std::string* error) {
  auto model = program.NewStream();
  if (!model.ok()) return *error = model.status().message(), std::vector<float>();
  auto stream = VadStream::Start(model->get(), g_rate, SegmentOptions());
  if (!stream.ok()) return *error = stream.status().message(), std::vector<float>();
  for (size_t at = 0; at < g_samples.size(); at += kPush) {
    Status pushed = stream->Push(g_samples.data() + at, std::min(kPush, g_samples.size() - at));
    if (!pushed.ok()) return *error = pushed.message(), std::vector<float>();
  }
  Status finished = stream->Finish();
  if (!finished.ok()) return *error = finished.message(), std::vector<float>();
  return stream->TakeProbabilities();
}

TEST(VadStreamsTest, StreamsOnThreadsEachGetWhatTheyGetAlone) {
  for (const std::string& path : g_programs) {
    SCOPED_TRACE(path);
    auto program = SharedProgram::Map(path);
    ASSERT_TRUE(program.ok()) << program.status().message();
    std::string error;
    const std::vector<float> alone = RunStream(**program, &error);
    ASSERT_FALSE(alone.empty()) << error;

    std::vector<std::vector<float>> results(kStreams);
    std::vector<std::string> errors(kStreams);
    std::vector<std::thread> threads;
    for (int s = 0; s < kStreams; ++s) {
      threads.emplace_back([&, s] { results[s] = RunStream(**program, &errors[s]); });
    }
    for (auto& thread : threads) thread.join();
    for (int s = 0; s < kStreams; ++s) {
      ASSERT_TRUE(errors[s].empty()) << "stream " << s << ": " << errors[s];
      EXPECT_EQ(results[s], alone) << "stream " << s;
    }
  }
}

}  // namespace
}  // namespace pteforge

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  if (argc < 3) {
    std::fprintf(stderr, "usage: vad_streams_test FILE.wav PROGRAM.pte...\n");
    return 2;
  }
  auto wav = pteforge::WavReader::Open(argv[1]);
  if (!wav.ok() || !(*wav)->Read((*wav)->samples(), &pteforge::g_samples).ok()) {
    std::fprintf(stderr, "cannot read %s\n", argv[1]);
    return 2;
  }
  pteforge::g_rate = (*wav)->sample_rate();
  for (int i = 2; i < argc; ++i) pteforge::g_programs.push_back(argv[i]);
  // The kernels' pool without worker threads: its handoffs are atomics inside the
  // uninstrumented wheel, which ThreadSanitizer cannot see (docs/runtime.md). The
  // streams' own threads are what this test is about.
  pteforge::Status threads = pteforge::SetThreadCount(1);
  if (!threads.ok()) {
    std::fprintf(stderr, "%s\n", threads.message().c_str());
    return 2;
  }
  return RUN_ALL_TESTS();
}
