#include "cc/parallel/parallel_for.h"

namespace pteforge {
namespace parallel {
namespace {
Runner g_runner = nullptr;
size_t g_workers = 1;
}  // namespace

void SetRunner(Runner runner, size_t workers) {
  const bool parallel = runner != nullptr && workers > 1;
  g_runner = parallel ? runner : nullptr;
  g_workers = parallel ? workers : 1;
}

size_t Workers() { return g_workers; }

void For(size_t count, Task task, void* context) {
  if (g_runner != nullptr && count > 1) return g_runner(task, context, count);
  for (size_t i = 0; i < count; ++i) task(context, 0, i);
}

}  // namespace parallel
}  // namespace pteforge
