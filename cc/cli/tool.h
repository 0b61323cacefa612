// Tool: what every pteforge command-line program shares, so that its main holds only
// its own logic (as llama.cpp's tools share one argument table): its name in messages,
// its flags with --help, and Fail. Builds for every target, the microcontroller's
// images included; RuntimeTool (runtime_tool.h) adds the flags of the programs that
// run .pte files on the ExecuTorch runtime (--threads, --verbose).
//
//   int main(int argc, char** argv) {
//     Tool tool("pte_replay", "--model=x.pte [--print]");
//     tool.flags().Define("model", "the .pte to open");
//     if (auto exit_status = tool.Start(argc, argv)) return *exit_status;
//     ...
//     if (!session.ok()) return tool.Fail(session.status());
//   }
//
// Exit statuses, the same for every tool: 0 on success (and after --help), 1 when a
// model or an input fails, 2 for bad flags or arguments. Not thread-safe.
#ifndef PTEFORGE_CC_CLI_TOOL_H_
#define PTEFORGE_CC_CLI_TOOL_H_

#include <optional>
#include <string>

#include "cc/cli/flags.h"
#include "cc/runtime/status.h"

namespace pteforge {

// The exit status for bad flags or arguments (1 is for failures of models and inputs).
inline constexpr int kUsageError = 2;

class Tool {
 public:
  // `name` starts every message ("translate: error: ..."); `usage` follows
  // "usage: <name> " in --help (the arguments, e.g. "[flags] file.wav ...").
  Tool(std::string name, std::string usage);
  virtual ~Tool() = default;

  // Define the tool's own flags here before Start. --help is defined already.
  Flags& flags() { return flags_; }
  const Flags& flags() const { return flags_; }
  const std::string& name() const { return name_; }

  // Parses argv and applies the standard flags. Returns the status main should exit
  // with now (0 after --help; kUsageError for a bad flag, with its message on stderr),
  // or nothing when the tool goes on.
  std::optional<int> Start(int argc, char** argv);
  // The same as Start, and positional arguments are refused (tools that take flags only).
  std::optional<int> StartWithFlagsOnly(int argc, char** argv);

  // Prints "<name>: error: <message>" on stderr and returns `exit_status` for main.
  int Fail(const std::string& message, int exit_status = 1) const;
  int Fail(const Status& status, int exit_status = 1) const { return Fail(status.message(), exit_status); }
  // "<name>: <message>" on stderr: a banner, a warning, a failure of one input of many.
  void Tell(const std::string& message) const;

 protected:
  // Applies the standard flags a subclass defines, once the flags are parsed. An
  // InvalidArgument status is a bad flag (kUsageError), any other a failure (1).
  virtual Status ApplyStandardFlags() { return Status(); }

 private:
  std::string name_;
  std::string usage_;
  Flags flags_;
};

}  // namespace pteforge

#endif  // PTEFORGE_CC_CLI_TOOL_H_
