// pteforge::stft_magnitude.out's boxed kernel (declared in ops.h), over stft.h.
#include <cstddef>
#include <cstdint>

#include "cc/kernels/ops.h"
#include "cc/kernels/stft.h"
#include "cc/kernels/unboxing.h"

namespace pteforge {
namespace kernels {

void StftMagnitudeOut(KernelRuntimeContext& context, Span<EValue*> stack) {
  constexpr const char* kOp = "pteforge::stft_magnitude.out";
  // signal, window, hop, out, and the returned out.
  if (stack.size() != 5) {
    Fail(context, kOp, "wrong number of arguments");
    return;
  }
  EValue* signal = stack[0];
  EValue* window = stack[1];
  EValue* hop = stack[2];
  EValue* out = stack[3];
  if (!IsFloatTensor(signal) || signal->toTensor().dim() < 1) {
    Fail(context, kOp, "signal must be a float32 tensor [..., samples]");
    return;
  }
  if (!IsFloatTensor(window) || window->toTensor().dim() != 1) {
    Fail(context, kOp, "window must be a float32 tensor [L]");
    return;
  }
  if (!hop->isInt() || hop->toInt() < 1) {
    Fail(context, kOp, "hop must be an integer >= 1");
    return;
  }
  if (!IsFloatTensor(out)) {
    Fail(context, kOp, "out must be a float32 tensor");
    return;
  }
  const Tensor& x = signal->toTensor();
  const int64_t samples = x.size(x.dim() - 1);
  const int64_t length = window->toTensor().size(0);
  if (length < 1 || (length & (length - 1)) != 0 || length > samples) {
    Fail(context, kOp, "the window's length must be a power of two and at most the signal's");
    return;
  }
  if (x.dim() + 1 > static_cast<ssize_t>(executorch::runtime::kTensorDimensionLimit)) {
    Fail(context, kOp, "signal has too many dimensions");
    return;
  }
  StftShape shape = {1, samples, length, hop->toInt()};
  SizesType sizes[executorch::runtime::kTensorDimensionLimit];
  for (ssize_t d = 0; d + 1 < x.dim(); ++d) {
    shape.batch *= x.size(d);
    sizes[d] = x.size(d);
  }
  sizes[x.dim() - 1] = static_cast<SizesType>(StftFrames(shape));
  sizes[x.dim()] = static_cast<SizesType>(StftBins(shape));
  if (executorch::runtime::resize_tensor(out->toTensor(), {sizes, static_cast<size_t>(x.dim() + 1)}) != Error::Ok) {
    Fail(context, kOp, "cannot resize out to the result's shape");
    return;
  }
  if (shape.batch == 0) return;
  auto scratch = context.allocate_temp(StftScratchBytes(shape), alignof(double));
  if (!scratch.ok()) {
    Fail(context, kOp, "no scratch memory for a frame's spectrum (a larger temp allocator is needed)",
         Error::MemoryAllocationFailed);
    return;
  }
  StftMagnitude(shape, x.const_data_ptr<float>(), window->toTensor().const_data_ptr<float>(), scratch.get(),
                out->toTensor().mutable_data_ptr<float>());
}

}  // namespace kernels
}  // namespace pteforge
