// What pteforge's boxed kernels (ops.cc, attention_op.cc) share to unbox and check their
// arguments: the ExecuTorch names they use, a failure that logs and fails the call,
// and the float32 check.
#ifndef PTEFORGE_CC_KERNELS_UNBOXING_H_
#define PTEFORGE_CC_KERNELS_UNBOXING_H_

#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/exec_aten/util/tensor_util.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>
#include <executorch/runtime/platform/log.h>

namespace pteforge {
namespace kernels {

using executorch::aten::ScalarType;
using executorch::aten::SizesType;
using executorch::aten::Tensor;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::KernelRuntimeContext;
using executorch::runtime::Span;

// Logs "<op>: <what>" and fails the call with `error`; returns false.
inline bool Fail(KernelRuntimeContext& context, const char* op, const char* what,
                 Error error = Error::InvalidArgument) {
  ET_LOG(Error, "%s: %s", op, what);
  context.fail(error);
  return false;
}

// A float32 tensor in the default dim order (what the kernels index as contiguous).
inline bool IsFloatTensor(const EValue* value) {
  return value->isTensor() && value->toTensor().scalar_type() == ScalarType::Float &&
         executorch::runtime::tensor_is_default_dim_order(value->toTensor());
}

}  // namespace kernels
}  // namespace pteforge

#endif  // PTEFORGE_CC_KERNELS_UNBOXING_H_
