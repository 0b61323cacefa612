#include "cc/kernels/parallel.h"

// The wheel exports ExecuTorch's thread pool but does not ship its header,
// extension/threadpool/threadpool.h (cc/runtime/threads.cc declares the same way):
//   executorch::extension::threadpool::get_threadpool()
//   ThreadPool::run(FunctionRef<void(size_t)>, size_t)
namespace executorch::extension::threadpool {
class ThreadPool {
 public:
  void run(executorch::runtime::FunctionRef<void(size_t)> fn, size_t range);
};
ThreadPool* get_threadpool();
}  // namespace executorch::extension::threadpool

namespace pteforge {
namespace kernels {

void ParallelFor(size_t count, executorch::runtime::FunctionRef<void(size_t)> task) {
  auto* pool = executorch::extension::threadpool::get_threadpool();
  if (pool == nullptr || count < 2) {
    for (size_t i = 0; i < count; ++i) task(i);
    return;
  }
  pool->run(task, count);
}

}  // namespace kernels
}  // namespace pteforge
