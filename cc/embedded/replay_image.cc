// The replay program of a bare-metal image: opens the image's embedded program in a
// Session over static memory, replays the conformance record embedded with it, and
// exits 0 only if every output and state value matches eager PyTorch's
// (cc/replay/replay.h). Arguments (through semihosting): --print prints every output.
#include <cstdio>
#include <cstring>
#include <string>

#include "cc/embedded/embedded_program.h"
#include "cc/replay/replay.h"
#include "cc/runtime/session.h"

namespace pteforge {
namespace {

int Main(int argc, char** argv) {
  bool print = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--print") != 0) {
      std::fprintf(stderr, "replay: error: unknown argument '%s' (only --print)\n", argv[i]);
      return 2;
    }
    print = true;
  }
  auto image = OpenImageProgram();
  if (!image.ok()) {
    std::fprintf(stderr, "replay: error: %s\n", image.status().message().c_str());
    return 1;
  }
  const EmbeddedProgram& embedded = ImageProgram();
  if (embedded.replay == nullptr) {
    std::fprintf(stderr, "replay: error: the image embeds no replay record (pte_embed(replay = True))\n");
    return 2;
  }
  Session& session = *image->session;
  const MemoryUsage& used = session.memory();
  std::printf("loaded '%s' (%zu bytes) in %.1f ms: state arena %zu B, work arena %zu B, method pool %zu of %zu B\n",
              embedded.name, embedded.size, image->load_ms, used.state_arena_bytes, used.work_arena_bytes,
              used.method_bytes, embedded.buffers.methods.size());
  et_timestamp_t start = executorch::runtime::pal_current_ticks();
  Status replayed = ReplayAndPrint(session, std::string(embedded.replay, embedded.replay_size), print);
  if (!replayed.ok()) {
    std::fprintf(stderr, "replay: error: %s\n", replayed.message().c_str());
    return 1;
  }
  std::printf("replay took %.1f ms (emulated clock); %s\n", MillisecondsSince(start),
              MemoryPeaks(embedded.heap_bytes).c_str());
  return 0;
}

}  // namespace
}  // namespace pteforge

int main(int argc, char** argv) { return pteforge::Main(argc, argv); }
