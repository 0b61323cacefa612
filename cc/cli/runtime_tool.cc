#include "cc/cli/runtime_tool.h"

#include <utility>

#include "cc/cli/executorch_log.h"
#include "cc/runtime/threads.h"

namespace pteforge {

RuntimeTool::RuntimeTool(std::string name, std::string usage, uint32_t default_threads)
    : Tool(std::move(name), std::move(usage)), default_threads_(default_threads) {
  if (default_threads > 0) {
    flags().Define("threads", "threads for the kernels and XNNPACK", std::to_string(default_threads));
  } else {
    flags().Define("threads", "threads for the kernels and XNNPACK (default: ExecuTorch's choice)");
  }
  flags().Define("pool_spin_us",
                 "microseconds a pool thread watches for its next task before it sleeps (0: the pool's own short "
                 "spin; none watch on more threads than CPUs)",
                 std::to_string(kDefaultPoolSpinMicroseconds));
  flags().DefineSwitch("verbose", "show ExecuTorch's own log lines (default: its errors only)");
}

Status RuntimeTool::ApplyStandardFlags() {
  RouteExecutorchLog(flags().IsSet("verbose"));
  auto spin = flags().GetInt("pool_spin_us", 0, 1000000);
  if (!spin.ok()) return spin.status();
  SetPoolSpin(static_cast<uint32_t>(spin.value()));
  if (!flags().IsSet("threads") && default_threads_ == 0) return Status();
  auto threads = flags().GetInt("threads", 1, 256);
  if (!threads.ok()) return threads.status();
  return SetThreadCount(static_cast<uint32_t>(threads.value()));
}

}  // namespace pteforge
