// Work split over ExecuTorch's thread pool, for pteforge's kernels: the pool XNNPACK
// uses, sized by --threads (cc/runtime/threads.h), free between delegate calls while a
// kernel runs. On the runtime from source (the Cortex-M55, --config=source_runtime)
// there is no pool and the work runs on the calling thread.
#ifndef PTEFORGE_CC_KERNELS_PARALLEL_H_
#define PTEFORGE_CC_KERNELS_PARALLEL_H_

#include <executorch/runtime/core/function_ref.h>

#include <cstddef>

namespace pteforge {
namespace kernels {

// Calls task(i) for every i < count, on the pool's threads (in no particular order) or
// on this one; returns when all have returned.
void ParallelFor(size_t count, executorch::runtime::FunctionRef<void(size_t)> task);

}  // namespace kernels
}  // namespace pteforge

#endif  // PTEFORGE_CC_KERNELS_PARALLEL_H_
