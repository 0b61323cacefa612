// pte_replay: replay an export's conformance calls through a Session on this target and
// compare with eager PyTorch's results (cc/replay/replay.h).
//
//   pte_replay --model=stateful.pte [--replay=stateful.replay.txt] [--print]
//
// Without --replay, the record next to the model (<name>.replay.txt, where pte_export
// writes it).
// Exit status: 0 when every value matches, 1 when the program or a value does not,
// 2 for bad flags.
#include <cstdio>
#include <fstream>
#include <iterator>

#include "cc/cli/runtime_tool.h"
#include "cc/replay/replay.h"
#include "cc/runtime/session.h"

namespace pteforge {
namespace {

// x.pte -> x.replay.txt, where pte_export(replay = True) writes it.
std::string DefaultReplayPath(const std::string& model) {
  const std::string suffix = ".pte";
  bool has_suffix = model.size() > suffix.size() && model.compare(model.size() - suffix.size(), suffix.size(), suffix) == 0;
  return (has_suffix ? model.substr(0, model.size() - suffix.size()) : model) + ".replay.txt";
}

int Main(int argc, char** argv) {
  RuntimeTool tool("pte_replay", "--model=x.pte [--replay=x.replay.txt] [--print]");
  Flags& flags = tool.flags();
  flags.Define("model", "the .pte to open");
  flags.Define("replay", "the replay record its export wrote (default: <model without .pte>.replay.txt)");
  flags.DefineSwitch("print", "print every call's outputs exactly, to compare runtimes");
  if (auto exit_status = tool.StartWithFlagsOnly(argc, argv)) return *exit_status;
  if (!flags.IsSet("model")) return tool.Fail("--model is required", kUsageError);
  std::string model = flags.Get("model");
  std::string replay = flags.IsSet("replay") ? flags.Get("replay") : DefaultReplayPath(model);
  std::ifstream in(replay);
  if (!in) {
    return tool.Fail("cannot read the replay record " + replay + " (export with pte_export(replay = True), or give "
                     "--replay)", kUsageError);
  }
  std::string text(std::istreambuf_iterator<char>(in), {});
  auto session = Session::Open(model);
  if (!session.ok()) return tool.Fail(session.status());
  Status replayed = ReplayAndPrint(*session.value(), text, flags.IsSet("print"));
  return replayed.ok() ? 0 : tool.Fail(replayed);
}

}  // namespace
}  // namespace pteforge

int main(int argc, char** argv) { return pteforge::Main(argc, argv); }
