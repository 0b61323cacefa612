#include "cc/cli/tool.h"

#include <cstdio>
#include <utility>

namespace pteforge {

Tool::Tool(std::string name, std::string usage) : name_(std::move(name)), usage_(std::move(usage)) {
  flags_.DefineSwitch("help", "show this help");
}

std::optional<int> Tool::Start(int argc, char** argv) {
  Status parsed = flags_.Parse(argc, argv);
  if (!parsed.ok()) return Fail(parsed, kUsageError);
  if (flags_.IsSet("help")) {
    std::printf("usage: %s %s\n%s", name_.c_str(), usage_.c_str(), flags_.Help().c_str());
    return 0;
  }
  Status applied = ApplyStandardFlags();
  if (!applied.ok()) return Fail(applied, applied.code() == Error::InvalidArgument ? kUsageError : 1);
  return std::nullopt;
}

std::optional<int> Tool::StartWithFlagsOnly(int argc, char** argv) {
  std::optional<int> exit_status = Start(argc, argv);
  if (exit_status || flags_.positional().empty()) return exit_status;
  return Fail("unexpected argument '" + flags_.positional()[0] + "' (this tool takes flags only; see --help)",
              kUsageError);
}

int Tool::Fail(const std::string& message, int exit_status) const {
  std::fprintf(stderr, "%s: error: %s\n", name_.c_str(), message.c_str());
  return exit_status;
}

void Tool::Tell(const std::string& message) const { std::fprintf(stderr, "%s: %s\n", name_.c_str(), message.c_str()); }

}  // namespace pteforge
