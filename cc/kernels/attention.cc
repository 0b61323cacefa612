#include "cc/kernels/attention.h"

#include "cc/kernels/attention_lanes.h"
#include "cc/parallel/parallel_for.h"
#include "cc/simd/lanes.h"

namespace pteforge {
namespace kernels {
namespace {

using HeadsFunction = void (*)(const AttentionShape&, const AttentionArgs&, int32_t, int32_t, int32_t, int32_t);

HeadsFunction ForThisCpu() {
#if defined(__x86_64__)
  if (simd::RunLanes() == 8) return lanes8::CachedAttentionHeads;
#endif
  return lanes4::CachedAttentionHeads;
}

// A call's work in parts: each head's rows in `row_parts` consecutive runs. Whole heads
// when there are enough of them; a model with few key/value heads (SmolLM2-135M: 3,
// each with its 3 query heads as rows) would otherwise leave a thread of two idle for
// a third of the call.
struct PartTask {
  const AttentionShape* shape;
  const AttentionArgs* args;
  HeadsFunction heads;
  int32_t row_parts;
};

int32_t RowParts(const AttentionShape& shape, size_t workers) {
  const size_t wanted = 4 * workers;  // parts enough for an even share each
  if (static_cast<size_t>(shape.heads) >= wanted) return 1;
  const int32_t parts = static_cast<int32_t>((wanted + shape.heads - 1) / shape.heads);
  return parts < shape.rows ? parts : shape.rows;
}

// One part on one worker, in the worker's own part of the scratch.
void RunPart(void* context, size_t worker, size_t index) {
  const auto* task = static_cast<const PartTask*>(context);
  AttentionArgs own = *task->args;
  own.scratch = task->args->scratch + worker * AttentionScratchFloats(*task->shape);
  const int32_t head = static_cast<int32_t>(index) / task->row_parts;
  const int32_t part = static_cast<int32_t>(index) % task->row_parts;
  const int64_t rows = task->shape->rows;
  const auto first_row = static_cast<int32_t>(rows * part / task->row_parts);
  const auto end_row = static_cast<int32_t>(rows * (part + 1) / task->row_parts);
  task->heads(*task->shape, own, head, head + 1, first_row, end_row);
}

}  // namespace

void CachedAttention(const AttentionShape& shape, const AttentionArgs& args, size_t workers) {
  const HeadsFunction heads = ForThisCpu();
  if (workers <= 1 || shape.heads * shape.rows <= 1) return heads(shape, args, 0, shape.heads, 0, shape.rows);
  PartTask task = {&shape, &args, heads, RowParts(shape, workers)};
  parallel::For(static_cast<size_t>(shape.heads) * task.row_parts, RunPart, &task);
}

}  // namespace kernels
}  // namespace pteforge
