// A parallel loop for pteforge's own kernels over the runtime's thread pool.
//
// The kernels link no thread pool (the Cortex-M55 and the runtime built from source
// have none): the runtime installs a runner when it has one (cc/runtime/threads.cc,
// over ExecuTorch's pthreadpool, which XNNPACK uses too); without one, For runs the
// loop on the calling thread.
#ifndef PTEFORGE_CC_PARALLEL_PARALLEL_FOR_H_
#define PTEFORGE_CC_PARALLEL_PARALLEL_FOR_H_

#include <cstddef>

namespace pteforge {
namespace parallel {

// One iteration: `index` in [0, count), run by worker `worker` in [0, Workers()); one
// worker runs one iteration at a time, so per-worker scratch needs no lock.
using Task = void (*)(void* context, size_t worker, size_t index);
// Runs task for every index, on up to `workers` threads, and returns when all are done.
using Runner = void (*)(Task task, void* context, size_t count);

// Installs `runner` with its number of workers; nullptr (or workers <= 1): serial.
// Not thread-safe: call before any kernel runs (SetThreadCount does).
void SetRunner(Runner runner, size_t workers);

// The workers a loop may use: 1 without a runner.
size_t Workers();

// task(context, worker, i) for every i < count.
void For(size_t count, Task task, void* context);

}  // namespace parallel
}  // namespace pteforge

#endif  // PTEFORGE_CC_PARALLEL_PARALLEL_FOR_H_
