// The replay program of a bare-metal image: opens the image's embedded program in a
// Session over static memory, replays the conformance record embedded with it, and
// exits 0 only if every output and state value matches eager PyTorch's
// (cc/replay/replay.h). Arguments (through semihosting): --print prints every output.
#include <cstdio>
#include <cstring>
#include <string>

#include <executorch/runtime/platform/clock.h>
#include <executorch/runtime/platform/platform.h>

#include "cc/embedded/embedded_program.h"
#include "cc/replay/replay.h"
#include "cc/runtime/session.h"

namespace pteforge {
namespace {

using executorch::runtime::pal_current_ticks;

double Milliseconds(et_timestamp_t ticks) { return static_cast<double>(executorch::runtime::ticks_to_ns(ticks)) / 1e6; }

int Main(int argc, char** argv) {
  bool print = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--print") != 0) {
      std::fprintf(stderr, "replay: error: unknown argument '%s' (only --print)\n", argv[i]);
      return 2;
    }
    print = true;
  }
  const EmbeddedProgram& embedded = ImageProgram();
  StaticMemory memory(embedded.buffers);
  SessionOptions options;
  options.memory = &memory;
  et_timestamp_t start = pal_current_ticks();
  auto session = Session::OpenBuffer(embedded.data, embedded.size, options);
  if (!session.ok()) {
    std::fprintf(stderr, "replay: error: the embedded program '%s': %s\n", embedded.name,
                 session.status().message().c_str());
    return 1;
  }
  et_timestamp_t loaded = pal_current_ticks();
  if (embedded.replay == nullptr) {
    std::fprintf(stderr, "replay: error: the image embeds no replay record (pte_embed(replay = True))\n");
    return 2;
  }
  const MemoryUsage& used = session.value()->memory();
  std::printf("loaded '%s' (%zu bytes) in %.1f ms: state arena %zu B, work arena %zu B, method pool %zu of %zu B\n",
              embedded.name, embedded.size, Milliseconds(loaded - start), used.state_arena_bytes,
              used.work_arena_bytes, used.method_bytes, embedded.buffers.methods.size());
  Status replayed = ReplayAndPrint(*session.value(), std::string(embedded.replay, embedded.replay_size), print);
  if (!replayed.ok()) {
    std::fprintf(stderr, "replay: error: %s\n", replayed.message().c_str());
    return 1;
  }
  std::printf("replay took %.1f ms (emulated clock)\n", Milliseconds(pal_current_ticks() - loaded));
  return 0;
}

}  // namespace
}  // namespace pteforge

int main(int argc, char** argv) { return pteforge::Main(argc, argv); }
