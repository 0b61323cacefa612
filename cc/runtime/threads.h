// The number of threads ExecuTorch's kernels and XNNPACK use (its global thread pool).
#ifndef PTEFORGE_CC_RUNTIME_THREADS_H_
#define PTEFORGE_CC_RUNTIME_THREADS_H_

#include <cstdint>

#include "cc/runtime/status.h"

namespace pteforge {

// Resizes the process-wide thread pool to `threads` (>= 1), which pteforge's own
// kernels then share too (cc/parallel/parallel_for.h). Not thread-safe: call before
// any Session runs.
Status SetThreadCount(uint32_t threads);

// The current size of the thread pool.
uint32_t ThreadCount();

// How long, in microseconds, a thread of the pool watches for its next task before it
// sleeps in the kernel (pool_wait.cc says why: the wheel's pool sleeps after 30-50 us,
// and waking it costs a decode step more than its share). The default keeps a decode's
// worker awake between its tasks; 0 leaves the pool's own spin alone. No thread watches
// while the pool has more threads than the process has CPUs. Process-wide; a runtime
// without a pool (built from source) ignores it.
inline constexpr uint32_t kDefaultPoolSpinMicroseconds = 1000;
void SetPoolSpin(uint32_t microseconds);

// The pool's waits for work so far: ended while watching, or gone on to the kernel.
struct PoolWaits {
  uint64_t watched = 0;
  uint64_t slept = 0;
};
PoolWaits CountPoolWaits();

// Prepares XNNPACK for Sessions that run at once on separate threads (translate
// --workers): every delegate call gets its own workspace, where XNNPACK's default
// shares one per process and lets one call run at a time (Bergamot, 2 workers: 1.1x
// one worker's throughput before, 1.8x after). Leave SessionOptions::
// share_packed_weights off for such Sessions: XNNPACK's weight cache also lets one
// call run at a time (the same run was 1.5x slower with it). Call before opening the
// Sessions. A runtime without XNNPACK (built from source) has nothing to prepare.
Status PrepareConcurrentSessions();

}  // namespace pteforge

#endif  // PTEFORGE_CC_RUNTIME_THREADS_H_
