// The process's peak resident memory, for the tools' --stats lines.
#ifndef PTEFORGE_CC_CLI_PEAK_RSS_H_
#define PTEFORGE_CC_CLI_PEAK_RSS_H_

namespace pteforge {

// VmHWM from /proc/self/status, in megabytes (getrusage's ru_maxrss where /proc is
// missing).
double PeakRssMegabytes();

}  // namespace pteforge

#endif  // PTEFORGE_CC_CLI_PEAK_RSS_H_
