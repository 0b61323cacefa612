#include "cc/runtime/threads.h"

#include <cstddef>

#include "executorch/runtime/backend/interface.h"
#include "executorch/runtime/backend/options.h"

#include "cc/parallel/parallel_for.h"
#include "cc/runtime/pool_wait.h"

// The wheel exports ExecuTorch's thread pool but does not ship its header,
// extension/threadpool/threadpool.h (FINDINGS.md, "ExecuTorch C++ SDK from the wheel").
// These declarations match the exported symbols:
//   executorch::extension::threadpool::get_threadpool()
//   ThreadPool::_unsafe_reset_threadpool(unsigned int)
//   ThreadPool::get_thread_count() const
//   get_pthreadpool(), and pthreadpool's C function pthreadpool_parallelize_1d_with_thread
struct pthreadpool;
extern "C" void pthreadpool_parallelize_1d_with_thread(pthreadpool* pool,
                                                       void (*task)(void*, size_t thread, size_t index),
                                                       void* context, size_t range, uint32_t flags);
namespace executorch::extension::threadpool {
class ThreadPool {
 public:
  size_t get_thread_count() const;
  bool _unsafe_reset_threadpool(uint32_t num_threads);
};
ThreadPool* get_threadpool();
pthreadpool* get_pthreadpool();
}  // namespace executorch::extension::threadpool

namespace pteforge {
namespace {

// pteforge's kernels (cached attention's heads) on the pool XNNPACK uses.
void RunOnPool(parallel::Task task, void* context, size_t count) {
  pthreadpool_parallelize_1d_with_thread(executorch::extension::threadpool::get_pthreadpool(), task, context,
                                         count, /*flags=*/0);
}

}  // namespace

Status SetThreadCount(uint32_t threads) {
  if (threads == 0) return Failure(Error::InvalidArgument, "the thread count must be at least 1");
  auto* pool = executorch::extension::threadpool::get_threadpool();
  if (pool == nullptr) return Failure(Error::NotSupported, "this ExecuTorch runtime has no thread pool");
  if (!pool->_unsafe_reset_threadpool(threads)) {
    return Failure(Error::Internal, "could not resize the thread pool to %u threads", threads);
  }
  parallel::SetRunner(RunOnPool, threads);
  NotePoolSize(threads);
  return Status();
}

uint32_t ThreadCount() {
  auto* pool = executorch::extension::threadpool::get_threadpool();
  return pool == nullptr ? 1 : static_cast<uint32_t>(pool->get_thread_count());
}

Status PrepareConcurrentSessions() {
  // The option names of backends/xnnpack/runtime/XNNPACKBackend.h (a header the wheel
  // does not ship); 0 is WorkspaceSharingMode::Disabled.
  executorch::runtime::BackendOptions<1> options;
  options.set_option("workspace_sharing_mode", 0);
  const auto error = executorch::runtime::set_option("XnnpackBackend", options.view());
  if (error != executorch::runtime::Error::Ok) {
    return Failure(Error::Internal, "XNNPACK refused the options for concurrent sessions (error %d)",
                   static_cast<int>(error));
  }
  return Status();
}

}  // namespace pteforge
