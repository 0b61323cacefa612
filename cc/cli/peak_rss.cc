#include "cc/cli/peak_rss.h"

#include <sys/resource.h>

#include <cstdio>

namespace pteforge {

double PeakRssMegabytes() {
  // VmHWM: this process's own high-water mark. getrusage's ru_maxrss also counts the
  // parent's at fork (Linux keeps it across exec), so a tool started by a large process
  // (a Python benchmark holding torch) would report at least the parent's RSS.
  if (FILE* status = std::fopen("/proc/self/status", "r")) {
    char line[256];
    long kilobytes = -1;
    while (std::fgets(line, sizeof line, status) != nullptr) {
      if (std::sscanf(line, "VmHWM: %ld kB", &kilobytes) == 1) break;
    }
    std::fclose(status);
    if (kilobytes >= 0) return kilobytes / 1024.0;
  }
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024.0;  // kilobytes on Linux
}

}  // namespace pteforge
