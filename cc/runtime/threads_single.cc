#include "cc/runtime/threads.h"

// The ExecuTorch runtime built from source (third_party/executorch/source.BUILD) has no
// thread pool: its portable kernels run on the calling thread. One thread is all there
// is; asking for more says so instead of being ignored.
namespace pteforge {

Status SetThreadCount(uint32_t threads) {
  if (threads == 0) return Failure(Error::InvalidArgument, "the thread count must be at least 1");
  if (threads > 1) {
    return Failure(Error::NotSupported,
                   "this build's ExecuTorch runtime (from source) has no thread pool: it runs on one thread");
  }
  return Status();
}

uint32_t ThreadCount() { return 1; }

Status PrepareConcurrentSessions() { return Status(); }  // no XNNPACK in this runtime

void SetPoolSpin(uint32_t) {}  // no pool: nothing waits

PoolWaits CountPoolWaits() { return PoolWaits(); }

}  // namespace pteforge
