#include "cc/kernels/parallel.h"

#include <algorithm>

// The wheel exports ExecuTorch's thread pool but does not ship its header,
// extension/threadpool/threadpool.h (cc/runtime/threads.cc declares the same way):
//   executorch::extension::threadpool::get_threadpool()
//   ThreadPool::get_thread_count() const, ThreadPool::run(FunctionRef<void(size_t)>, size_t)
namespace executorch::extension::threadpool {
class ThreadPool {
 public:
  size_t get_thread_count() const;
  void run(executorch::runtime::FunctionRef<void(size_t)> fn, size_t range);
};
ThreadPool* get_threadpool();
}  // namespace executorch::extension::threadpool

namespace pteforge {
namespace kernels {

size_t ParallelWorkers() {
  auto* pool = executorch::extension::threadpool::get_threadpool();
  return pool == nullptr ? 1 : std::max<size_t>(1, pool->get_thread_count());
}

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
