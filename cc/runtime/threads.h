// The number of threads ExecuTorch's kernels and XNNPACK use (its global thread pool).
#ifndef PTEFORGE_CC_RUNTIME_THREADS_H_
#define PTEFORGE_CC_RUNTIME_THREADS_H_

#include <cstdint>

#include "cc/runtime/status.h"

namespace pteforge {

// Resizes the process-wide thread pool to `threads` (>= 1). Not thread-safe: call
// before any Session runs.
Status SetThreadCount(uint32_t threads);

// The current size of the thread pool.
uint32_t ThreadCount();

}  // namespace pteforge

#endif  // PTEFORGE_CC_RUNTIME_THREADS_H_
