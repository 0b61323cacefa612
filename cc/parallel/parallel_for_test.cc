#include "cc/parallel/parallel_for.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace pteforge {
namespace parallel {
namespace {

struct Seen {
  std::vector<std::atomic<int>> times;
  std::vector<std::atomic<int>> workers;
  explicit Seen(size_t count) : times(count), workers(count) {}
};

void Record(void* context, size_t worker, size_t index) {
  auto* seen = static_cast<Seen*>(context);
  seen->times[index]++;
  seen->workers[index] = static_cast<int>(worker);
}

// A runner on two std::threads, splitting the indices between them (as a pool would).
void TwoThreads(Task task, void* context, size_t count) {
  std::thread other([&] {
    for (size_t i = 1; i < count; i += 2) task(context, 1, i);
  });
  for (size_t i = 0; i < count; i += 2) task(context, 0, i);
  other.join();
}

TEST(ParallelForTest, WithoutARunnerEveryIndexRunsOnceOnWorkerZero) {
  SetRunner(nullptr, 4);
  EXPECT_EQ(Workers(), 1u);
  Seen seen(7);
  For(7, Record, &seen);
  for (size_t i = 0; i < 7; ++i) {
    EXPECT_EQ(seen.times[i], 1) << i;
    EXPECT_EQ(seen.workers[i], 0) << i;
  }
}

TEST(ParallelForTest, ARunnerRunsEveryIndexOnceOnItsWorkers) {
  SetRunner(TwoThreads, 2);
  EXPECT_EQ(Workers(), 2u);
  Seen seen(9);
  For(9, Record, &seen);
  for (size_t i = 0; i < 9; ++i) {
    EXPECT_EQ(seen.times[i], 1) << i;
    EXPECT_EQ(seen.workers[i], static_cast<int>(i % 2)) << i;
  }
  SetRunner(TwoThreads, 1);  // one worker: serial
  EXPECT_EQ(Workers(), 1u);
  SetRunner(nullptr, 1);
}

}  // namespace
}  // namespace parallel
}  // namespace pteforge
