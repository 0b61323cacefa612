// ExecuTorch's own log lines on the tools' stderr.
//
// ExecuTorch logs at info level while it works (e.g. five cpuinfo lines on every run,
// "Failed to open midr file ...", which read like errors but are not). The tools route
// its messages through pteforge: by default only its errors reach stderr, as
// "executorch: error: <message> (<file>:<line>)"; with verbose, every message in
// ExecuTorch's own format.
#ifndef PTEFORGE_CC_CLI_EXECUTORCH_LOG_H_
#define PTEFORGE_CC_CLI_EXECUTORCH_LOG_H_

namespace pteforge {

// Installs the routing (ExecuTorch's PAL log hook, register_pal); call before the
// first Session opens. Not thread-safe.
void RouteExecutorchLog(bool verbose);

}  // namespace pteforge

#endif  // PTEFORGE_CC_CLI_EXECUTORCH_LOG_H_
