// pteforge::cached_attention.out's boxed kernel (declared in ops.h), over attention.h.
#include <cstddef>
#include <cstdint>

#include "cc/kernels/attention.h"
#include "cc/kernels/ops.h"
#include "cc/kernels/unboxing.h"
#include "cc/parallel/parallel_for.h"

namespace pteforge {
namespace kernels {

void CachedAttentionOut(KernelRuntimeContext& context, Span<EValue*> stack) {
  constexpr const char* kOp = "pteforge::cached_attention.out";
  // query, keys, values, mask, position_bias, scale, out, and the returned out.
  if (stack.size() != 8) {
    Fail(context, kOp, "wrong number of arguments");
    return;
  }
  EValue* query = stack[0];
  EValue* keys = stack[1];
  EValue* values = stack[2];
  EValue* mask = stack[3];
  EValue* bias = stack[4];
  EValue* scale = stack[5];
  EValue* out = stack[6];
  if (!IsFloatTensor(query) || query->toTensor().dim() != 3) {
    Fail(context, kOp, "query must be a float32 tensor [rows, heads, head_dim]");
    return;
  }
  const Tensor& q = query->toTensor();
  const int64_t rows = q.size(0), heads = q.size(1), dim = q.size(2);
  if (!IsFloatTensor(keys) || !IsFloatTensor(values) || keys->toTensor().dim() != 2 ||
      values->toTensor().sizes() != keys->toTensor().sizes() || keys->toTensor().size(1) != dim || heads == 0 ||
      keys->toTensor().size(0) % heads != 0) {
    Fail(context, kOp, "keys and values must be float32 tensors [heads * width, head_dim]");
    return;
  }
  const int64_t width = keys->toTensor().size(0) / heads;
  // A mask of m rows, m dividing the query's rows, serves row r with its row r % m.
  const int64_t mask_rows = mask->isNone() ? 1 : (mask->isTensor() ? mask->toTensor().size(0) : 0);
  if (!mask->isNone() && (!IsFloatTensor(mask) || mask->toTensor().dim() != 2 || mask_rows == 0 ||
                          rows % mask_rows != 0 || mask->toTensor().size(1) != width)) {
    Fail(context, kOp, "mask must be None or a float32 tensor [m, width], m dividing the rows");
    return;
  }
  int64_t positions = 0;
  if (!bias->isNone()) {
    const bool valid = IsFloatTensor(bias) && bias->toTensor().dim() == 2 && bias->toTensor().size(0) == heads;
    positions = valid ? bias->toTensor().size(1) : 0;
    if (positions == 0 || width % positions != 0) {
      Fail(context, kOp, "position_bias must be None or a float32 tensor [heads, P], P dividing the width");
      return;
    }
  }
  if (!scale->isDouble() || !IsFloatTensor(out)) {
    Fail(context, kOp, "scale must be a float and out a float32 tensor");
    return;
  }
  if (executorch::runtime::resize_tensor(out->toTensor(), q.sizes()) != Error::Ok) {
    Fail(context, kOp, "cannot resize out to the query's shape");
    return;
  }
  if (rows > INT32_MAX || heads > INT32_MAX || width > INT32_MAX || dim > INT32_MAX) {
    Fail(context, kOp, "tensor too large");
    return;
  }
  const AttentionShape shape = {static_cast<int32_t>(rows), static_cast<int32_t>(heads), static_cast<int32_t>(width),
                                static_cast<int32_t>(dim), static_cast<int32_t>(positions),
                                static_cast<int32_t>(mask_rows)};
  if (rows == 0 || dim == 0) return;
  // A scratch per worker when the runtime has a pool (decode: 3 rows over a 1024-position
  // cache, 13 KB each); one, on this thread, if that much temp memory is not there.
  auto allocate = [&context](size_t floats) -> float* {
    auto block = context.allocate_temp(floats * sizeof(float), alignof(float));
    return block.ok() ? static_cast<float*>(block.get()) : nullptr;
  };
  size_t workers = heads > 1 ? parallel::Workers() : 1;
  float* scratch = allocate(workers * AttentionScratchFloats(shape));
  if (scratch == nullptr && workers > 1) {
    workers = 1;
    scratch = allocate(AttentionScratchFloats(shape));
  }
  if (scratch == nullptr) {
    Fail(context, kOp, "no scratch memory for the scores (a larger temp allocator is needed)",
         Error::MemoryAllocationFailed);
    return;
  }
  AttentionArgs args;
  args.query = q.const_data_ptr<float>();
  args.keys = keys->toTensor().const_data_ptr<float>();
  args.values = values->toTensor().const_data_ptr<float>();
  args.mask = mask->isNone() ? nullptr : mask->toTensor().const_data_ptr<float>();
  args.bias = bias->isNone() ? nullptr : bias->toTensor().const_data_ptr<float>();
  args.scale = static_cast<float>(scale->toDouble());
  args.scratch = scratch;
  args.out = out->toTensor().mutable_data_ptr<float>();
  CachedAttention(shape, args, workers);
}

}  // namespace kernels
}  // namespace pteforge
