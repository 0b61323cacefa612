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

#include "cc/cli/executorch_log.h"
#include "cc/cli/flags.h"
#include "cc/replay/replay.h"
#include "cc/runtime/session.h"

namespace pteforge {
namespace {

int Fail(const Status& status, int exit_code) {
  std::fprintf(stderr, "pte_replay: error: %s\n", status.message().c_str());
  return exit_code;
}

// x.pte -> x.replay.txt, where pte_export(replay = True) writes it.
std::string DefaultReplayPath(const std::string& model) {
  const std::string suffix = ".pte";
  bool has_suffix = model.size() > suffix.size() && model.compare(model.size() - suffix.size(), suffix.size(), suffix) == 0;
  return (has_suffix ? model.substr(0, model.size() - suffix.size()) : model) + ".replay.txt";
}

int Main(int argc, char** argv) {
  Flags flags;
  flags.Define("model", "the .pte to open");
  flags.Define("replay", "the replay record its export wrote (default: <model without .pte>.replay.txt)");
  flags.DefineSwitch("print", "print every call's outputs exactly, to compare runtimes");
  flags.DefineSwitch("verbose", "show ExecuTorch's own log lines (default: its errors only)");
  flags.DefineSwitch("help", "show this help");
  Status parsed = flags.Parse(argc, argv);
  if (!parsed.ok()) return Fail(parsed, 2);
  RouteExecutorchLog(flags.IsSet("verbose"));
  if (flags.IsSet("help")) {
    std::printf("usage: %s --model=x.pte [--replay=x.replay.txt] [--print]\n%s", argv[0], flags.Help().c_str());
    return 0;
  }
  if (!flags.positional().empty()) {
    return Fail(Failure(Error::InvalidArgument, "unexpected argument '%s'", flags.positional()[0].c_str()), 2);
  }
  if (!flags.IsSet("model")) return Fail(Failure(Error::InvalidArgument, "--model is required"), 2);
  std::string model = flags.Get("model");
  std::string replay = flags.IsSet("replay") ? flags.Get("replay") : DefaultReplayPath(model);
  std::ifstream in(replay);
  if (!in) {
    return Fail(Failure(Error::AccessFailed, "cannot read the replay record %s (export with pte_export(replay = True), "
                        "or give --replay)", replay.c_str()), 2);
  }
  std::string text(std::istreambuf_iterator<char>(in), {});
  auto session = Session::Open(model);
  if (!session.ok()) return Fail(session.status(), 1);
  Status replayed = ReplayAndPrint(*session.value(), text, flags.IsSet("print"));
  return replayed.ok() ? 0 : Fail(replayed, 1);
}

}  // namespace
}  // namespace pteforge

int main(int argc, char** argv) { return pteforge::Main(argc, argv); }
