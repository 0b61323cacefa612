// RuntimeTool: a Tool (tool.h) that runs programs on the ExecuTorch runtime, with the
// flags every such tool has:
//   --threads  the size of ExecuTorch's thread pool (its kernels and XNNPACK);
//   --pool_spin_us  how long its threads watch for work before they sleep (threads.h);
//   --verbose  ExecuTorch's own log lines (default: its errors only; executorch_log.h).
// Start routes ExecuTorch's log and sizes the pool before the tool opens a Session.
// Linux and Android (the microcontroller's images use Tool).
#ifndef PTEFORGE_CC_CLI_RUNTIME_TOOL_H_
#define PTEFORGE_CC_CLI_RUNTIME_TOOL_H_

#include <cstdint>
#include <string>

#include "cc/cli/tool.h"

namespace pteforge {

class RuntimeTool : public Tool {
 public:
  // `default_threads`: the pool's size without --threads; 0 leaves it at ExecuTorch's
  // own choice (a thread per core with the wheel's runtime, one from source).
  RuntimeTool(std::string name, std::string usage, uint32_t default_threads = 0);

 protected:
  Status ApplyStandardFlags() override;

 private:
  uint32_t default_threads_;
};

}  // namespace pteforge

#endif  // PTEFORGE_CC_CLI_RUNTIME_TOOL_H_
