// The replay program of a bare-metal image: opens the image's embedded program in a
// Session over static memory, replays the conformance record embedded with it, and
// exits 0 only if every output and state value matches eager PyTorch's
// (cc/replay/replay.h). Arguments (through semihosting): --print prints every output.
#include <cstdio>
#include <string>

#include "cc/cli/tool.h"
#include "cc/embedded/embedded_program.h"
#include "cc/replay/replay.h"
#include "cc/runtime/session.h"

namespace pteforge {
namespace {

int Main(int argc, char** argv) {
  Tool tool("replay", "[--print]");
  tool.flags().DefineSwitch("print", "print every call's outputs exactly");
  if (auto exit_status = tool.StartWithFlagsOnly(argc, argv)) return *exit_status;
  auto image = OpenImageProgram();
  if (!image.ok()) return tool.Fail(image.status());
  const EmbeddedProgram& embedded = ImageProgram();
  if (embedded.replay == nullptr) {
    return tool.Fail("the image embeds no replay record (pte_embed(replay = True))", kUsageError);
  }
  Session& session = *image->session;
  const MemoryUsage& used = session.memory();
  std::printf("loaded '%s' (%zu bytes) in %.1f ms: state arena %zu B, work arena %zu B, method pool %zu of %zu B\n",
              embedded.name, embedded.size, image->load_ms, used.state_arena_bytes, used.work_arena_bytes,
              used.method_bytes, embedded.buffers.methods.size());
  et_timestamp_t start = executorch::runtime::pal_current_ticks();
  Status replayed = ReplayAndPrint(session, std::string(embedded.replay, embedded.replay_size),
                                   tool.flags().IsSet("print"));
  if (!replayed.ok()) return tool.Fail(replayed);
  std::printf("replay took %.1f ms (emulated clock); %s\n", MillisecondsSince(start),
              MemoryPeaks(embedded.heap_bytes).c_str());
  return 0;
}

}  // namespace
}  // namespace pteforge

int main(int argc, char** argv) { return pteforge::Main(argc, argv); }
