// pool_wait.cc's syscall(): a FUTEX_WAIT watches its word for SetPoolSpin's budget,
// everything else reaches the kernel as through libc's, and the wheel's pthreadpool
// really waits through it. On x86_64 and on aarch64 under qemu (BUILD.bazel).
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <thread>

#include "cc/parallel/parallel_for.h"
#include "cc/runtime/threads.h"

namespace pteforge {
namespace {

using std::chrono::milliseconds;

long FutexWait(std::atomic<uint32_t>* word, uint32_t value) {
  return syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT_PRIVATE, value, nullptr, nullptr, 0);
}

void FutexWakeAll(std::atomic<uint32_t>* word) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE_PRIVATE, INT32_MAX, nullptr, nullptr, 0);
}

// Polls `done` for up to 10 s (a loaded machine is slow, never this slow).
bool BecomesTrue(const std::atomic<bool>& done) {
  for (int i = 0; i < 1000 && !done.load(); ++i) std::this_thread::sleep_for(milliseconds(10));
  return done.load();
}

// A thread waiting on `word` until it is no longer 0, as pthreadpool's threads wait.
struct Waiter {
  std::atomic<uint32_t> word{0};
  std::atomic<bool> done{false};
  std::thread thread{[this] {
    while (word.load() == 0) FutexWait(&word, 0);
    done = true;
  }};
};

uint32_t Cpus() {
  cpu_set_t cpus;
  return sched_getaffinity(0, sizeof(cpus), &cpus) == 0 ? static_cast<uint32_t>(CPU_COUNT(&cpus)) : 1;
}

class PoolWaitTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(SetThreadCount(1).ok()); }
  void TearDown() override {
    SetPoolSpin(kDefaultPoolSpinMicroseconds);
    ASSERT_TRUE(SetThreadCount(1).ok());
  }
};

TEST_F(PoolWaitTest, OtherSystemCallsReachTheKernelWithTheirResultAndErrno) {
  EXPECT_EQ(syscall(SYS_getpid), getpid());
  errno = 0;
  EXPECT_EQ(syscall(SYS_close, -1), -1);
  EXPECT_EQ(errno, EBADF);
  // A FUTEX_WAIT on a word that already changed: the kernel's EAGAIN when nothing watches.
  SetPoolSpin(0);
  std::atomic<uint32_t> word{1};
  errno = 0;
  EXPECT_EQ(FutexWait(&word, 0), -1);
  EXPECT_EQ(errno, EAGAIN);
}

TEST_F(PoolWaitTest, AWatchedWaitEndsWhenItsWordChangesWithoutAWakeUp) {
  SetPoolSpin(20 * 1000 * 1000);  // 20 s: longer than the test may take
  const PoolWaits before = CountPoolWaits();
  Waiter waiter;
  std::this_thread::sleep_for(milliseconds(50));
  waiter.word = 1;  // and no FUTEX_WAKE: only a watching wait sees it
  const bool ended = BecomesTrue(waiter.done);
  if (!ended) FutexWakeAll(&waiter.word);  // free the thread, so the failure below is a failure, not a hang
  waiter.thread.join();
  EXPECT_TRUE(ended) << "the wait went to the kernel instead of watching its word";
  EXPECT_GT(CountPoolWaits().watched, before.watched);
}

TEST_F(PoolWaitTest, WithoutABudgetTheWaitSleepsInTheKernelUntilWoken) {
  SetPoolSpin(0);
  const PoolWaits before = CountPoolWaits();
  Waiter waiter;
  // Counted just before it goes to libc's syscall().
  for (int i = 0; i < 1000 && CountPoolWaits().slept == before.slept; ++i) std::this_thread::sleep_for(milliseconds(10));
  EXPECT_GT(CountPoolWaits().slept, before.slept);
  EXPECT_EQ(CountPoolWaits().watched, before.watched);
  std::this_thread::sleep_for(milliseconds(50));
  EXPECT_FALSE(waiter.done.load());
  waiter.word = 1;
  FutexWakeAll(&waiter.word);
  EXPECT_TRUE(BecomesTrue(waiter.done));
  waiter.thread.join();
}

TEST_F(PoolWaitTest, NothingWatchesWhileThePoolHasMoreThreadsThanCpus) {
  ASSERT_TRUE(SetThreadCount(Cpus() + 1).ok());
  SetPoolSpin(20 * 1000 * 1000);
  const PoolWaits before = CountPoolWaits();
  std::atomic<uint32_t> word{1};
  FutexWait(&word, 0);  // returns at once either way (the word is not 0)
  EXPECT_EQ(CountPoolWaits().watched, before.watched);
  EXPECT_GT(CountPoolWaits().slept, before.slept);
}

void Nothing(void*, size_t, size_t) {}

TEST_F(PoolWaitTest, TheWheelsPoolWaitsThroughIt) {
  // Two threads (even on one CPU): the worker, idle between loops, spins briefly in
  // the pool, then waits on a futex through syscall(), watched or not.
  ASSERT_TRUE(SetThreadCount(2).ok());
  SetPoolSpin(1000);
  const PoolWaits before = CountPoolWaits();
  for (int i = 0; i < 20; ++i) {
    parallel::For(64, Nothing, nullptr);
    std::this_thread::sleep_for(milliseconds(5));
  }
  const PoolWaits after = CountPoolWaits();
  EXPECT_GT(after.watched + after.slept, before.watched + before.slept)
      << "the thread pool's waits did not come through pool_wait.cc's syscall(): is it still linked first?";
}

}  // namespace
}  // namespace pteforge

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
