#include "cc/kernels/attention.h"

#include "cc/kernels/attention_lanes.h"
#include "cc/parallel/parallel_for.h"
#include "cc/simd/lanes.h"

namespace pteforge {
namespace kernels {
namespace {

using HeadsFunction = void (*)(const AttentionShape&, const AttentionArgs&, int32_t, int32_t);

HeadsFunction ForThisCpu() {
#if defined(__x86_64__)
  if (simd::RunLanes() == 8) return lanes8::CachedAttentionHeads;
#endif
  return lanes4::CachedAttentionHeads;
}

struct HeadTask {
  const AttentionShape* shape;
  const AttentionArgs* args;
  HeadsFunction heads;
};

// One head on one worker, in the worker's own part of the scratch.
void RunHead(void* context, size_t worker, size_t head) {
  const auto* task = static_cast<const HeadTask*>(context);
  AttentionArgs own = *task->args;
  own.scratch = task->args->scratch + worker * AttentionScratchFloats(*task->shape);
  task->heads(*task->shape, own, static_cast<int32_t>(head), static_cast<int32_t>(head) + 1);
}

}  // namespace

void CachedAttention(const AttentionShape& shape, const AttentionArgs& args, size_t workers) {
  const HeadsFunction heads = ForThisCpu();
  if (workers <= 1 || shape.heads <= 1) return heads(shape, args, 0, shape.heads);
  HeadTask task = {&shape, &args, heads};
  parallel::For(static_cast<size_t>(shape.heads), RunHead, &task);
}

}  // namespace kernels
}  // namespace pteforge
