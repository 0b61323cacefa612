// A pool thread that watches for its next task before it sleeps (threads.h,
// SetPoolSpin).
//
// Why: the wheel's pthreadpool (libexecutorch_threadpool.so) lets a thread spin about
// 1,000 `pause` instructions (30-50 us) for its next task and then sleep in the kernel
// (FUTEX_WAIT); the spin count is a constant compiled into the wheel. A decode step hands
// the pool a task every few tens of microseconds, with stretches on the calling thread
// in between that outlast that spin, so the worker slept about 37 times a token and
// joined each matrix-vector product late (docs/llm.md, "Decode and threads": on a 2-vCPU
// Sapphire Rapids VM the main thread ran XNNPACK's matrix loop alone in a fifth of its
// samples). The pool reaches the kernel through libc's syscall(), which it imports, so
// this executable's own syscall() (below) comes first in symbol lookup: a FUTEX_WAIT
// without a timeout first watches its word for the budget and returns as a wake-up would
// when the word changes; anything else, and a wait past the budget, goes on to libc's.
//
// A FUTEX_WAIT may return early for any reason, so every caller rechecks its word and
// waits again (pthreadpool does; so does libstdc++'s, the other caller of syscall() for
// futexes). Only glibc Linux runs this file: the wheel's runtime (BUILD.bazel).
#include <dlfcn.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdarg>
#include <cstdint>

#include "cc/runtime/threads.h"

namespace pteforge {
namespace {

std::atomic<int64_t> spin_ns{int64_t{kDefaultPoolSpinMicroseconds} * 1000};
// More threads in the pool than CPUs for the process (as SetThreadCount left it; false
// for ExecuTorch's own pool, a thread per core): a watching thread would take the CPU
// from one with work (4 threads on 2 vCPUs decoded at half the rate of no watching), so
// none watch.
std::atomic<bool> oversubscribed{false};
std::atomic<uint64_t> waits_watched{0};
std::atomic<uint64_t> waits_slept{0};

// libc's syscall(). Resolved without a function-local static: its guard may itself wait
// on a futex through syscall(), which would re-enter here.
using SyscallFunction = long (*)(long, ...);
std::atomic<SyscallFunction> libc_syscall{nullptr};

SyscallFunction LibcSyscall() {
  SyscallFunction function = libc_syscall.load(std::memory_order_acquire);
  if (function == nullptr) {
    function = reinterpret_cast<SyscallFunction>(dlsym(RTLD_NEXT, "syscall"));
    libc_syscall.store(function, std::memory_order_release);
  }
  return function;
}

uint32_t CpusAvailable() {
  cpu_set_t cpus;
  if (sched_getaffinity(0, sizeof(cpus), &cpus) != 0) return 1;
  return static_cast<uint32_t>(CPU_COUNT(&cpus));
}

int64_t NowNs() {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return int64_t{now.tv_sec} * 1000000000 + now.tv_nsec;
}

inline void Relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// True if *word left `value` within the budget.
bool WatchFutexWord(const uint32_t* word, uint32_t value, int64_t budget_ns) {
  const int64_t deadline = NowNs() + budget_ns;
  for (;;) {
    for (int i = 0; i < 64; ++i) {
      if (__atomic_load_n(word, __ATOMIC_ACQUIRE) != value) return true;
      Relax();
    }
    if (NowNs() >= deadline) return false;
  }
}

}  // namespace

void SetPoolSpin(uint32_t microseconds) {
  spin_ns.store(int64_t{microseconds} * 1000, std::memory_order_relaxed);
}

void NotePoolSize(uint32_t threads) { oversubscribed.store(threads > CpusAvailable(), std::memory_order_relaxed); }

PoolWaits CountPoolWaits() {
  return PoolWaits{waits_watched.load(std::memory_order_relaxed), waits_slept.load(std::memory_order_relaxed)};
}

}  // namespace pteforge

// Every Linux ABI passes a system call at most six word-sized arguments, and so does
// libc's syscall() to the kernel: forwarding six is exact for every call.
extern "C" long syscall(long number, ...) noexcept {
  va_list arguments;
  va_start(arguments, number);
  long a[6];
  for (long& argument : a) argument = va_arg(arguments, long);
  va_end(arguments);

  if (number == SYS_futex && (a[1] & FUTEX_CMD_MASK) == FUTEX_WAIT && a[3] == 0) {
    const int64_t budget = pteforge::spin_ns.load(std::memory_order_relaxed);
    if (budget > 0 && !pteforge::oversubscribed.load(std::memory_order_relaxed)) {
      if (pteforge::WatchFutexWord(reinterpret_cast<const uint32_t*>(a[0]), static_cast<uint32_t>(a[2]), budget)) {
        pteforge::waits_watched.fetch_add(1, std::memory_order_relaxed);
        return 0;
      }
    }
    pteforge::waits_slept.fetch_add(1, std::memory_order_relaxed);
  }
  pteforge::SyscallFunction libc = pteforge::LibcSyscall();
  if (libc == nullptr) {
    errno = ENOSYS;
    return -1;
  }
  return libc(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}
