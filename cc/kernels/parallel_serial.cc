#include "cc/kernels/parallel.h"

namespace pteforge {
namespace kernels {

void ParallelFor(size_t count, executorch::runtime::FunctionRef<void(size_t)> task) {
  for (size_t i = 0; i < count; ++i) task(i);
}

}  // namespace kernels
}  // namespace pteforge
