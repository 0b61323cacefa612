#include "cc/kernels/ops.h"

#include <cstddef>
#include <cstdint>

#include "cc/kernels/linear.h"
#include "cc/kernels/unboxing.h"

namespace pteforge {
namespace kernels {
namespace {

// The arguments both linear operators share, unboxed and checked.
struct LinearCall {
  const Tensor* input = nullptr;
  const Tensor* weight = nullptr;
  const Tensor* bias = nullptr;  // null when None
  Tensor* out = nullptr;
  bool relu = false;
  LinearShape shape = {0, 0, 0};
};

// Unboxes input, weight, optional bias, relu and out from their stack positions,
// checks them against the operator's contract (a weight of `weight_type`, or int16 too
// if `int16_weights`) and resizes out to [..., n].
bool Unbox(KernelRuntimeContext& context, const char* op, Span<EValue*> stack, size_t arguments,
           ScalarType weight_type, bool int16_weights, size_t bias_at, LinearCall* call) {
  // The arguments, the out tensor, then the returned value (the out tensor again).
  if (stack.size() != arguments + 2) return Fail(context, op, "wrong number of arguments");
  EValue* input = stack[0];
  EValue* weight = stack[1];
  EValue* bias = stack[bias_at];
  EValue* relu = stack[arguments - 1];
  EValue* out = stack[arguments];
  if (!IsFloatTensor(input) || input->toTensor().dim() < 1) return Fail(context, op, "input must be a float32 tensor [..., k]");
  const bool weight_typed = weight->isTensor() && (weight->toTensor().scalar_type() == weight_type ||
                                                   (int16_weights && weight->toTensor().scalar_type() == ScalarType::Short));
  if (!weight_typed || weight->toTensor().dim() != 2 ||
      !executorch::runtime::tensor_is_default_dim_order(weight->toTensor())) {
    return Fail(context, op,
                "weight must be a 2-D tensor [n, k] of the operator's weight dtype (linear: float32; linear_dq8: "
                "int8; linear_dq16: int8 or int16)");
  }
  if (!relu->isBool()) return Fail(context, op, "relu must be a bool");
  if (!IsFloatTensor(out)) return Fail(context, op, "out must be a float32 tensor");
  call->input = &input->toTensor();
  call->weight = &weight->toTensor();
  call->relu = relu->toBool();
  call->out = &out->toTensor();
  const Tensor& x = *call->input;
  const int64_t k = x.size(x.dim() - 1);
  const int64_t n = call->weight->size(0);
  if (call->weight->size(1) != k) return Fail(context, op, "weight's second dimension differs from the input's last");
  if (!bias->isNone()) {
    if (!IsFloatTensor(bias) || bias->toTensor().dim() != 1 || bias->toTensor().size(0) != n) {
      return Fail(context, op, "bias must be None or a float32 tensor [n]");
    }
    call->bias = &bias->toTensor();
  }
  if (x.dim() > static_cast<ssize_t>(executorch::runtime::kTensorDimensionLimit)) return Fail(context, op, "input has too many dimensions");
  SizesType sizes[executorch::runtime::kTensorDimensionLimit];
  for (ssize_t d = 0; d + 1 < x.dim(); ++d) sizes[d] = x.size(d);
  sizes[x.dim() - 1] = static_cast<SizesType>(n);
  if (executorch::runtime::resize_tensor(*call->out, {sizes, static_cast<size_t>(x.dim())}) != Error::Ok) {
    return Fail(context, op, "cannot resize out to the result's shape");
  }
  int64_t rows = 1;
  for (ssize_t d = 0; d + 1 < x.dim(); ++d) rows *= x.size(d);
  if (rows > INT32_MAX || k > INT32_MAX || n > INT32_MAX) return Fail(context, op, "tensor too large");
  call->shape = {static_cast<int32_t>(rows), static_cast<int32_t>(k), static_cast<int32_t>(n)};
  return true;
}

const float* BiasData(const LinearCall& call) {
  return call.bias != nullptr ? call.bias->const_data_ptr<float>() : nullptr;
}

// Handles the shapes with nothing to multiply: no output (0 rows or outputs), or no input
// features, where every output is its bias (or 0), through ReLU as the kernels would.
// Returns true if it did.
bool WithoutProducts(const LinearCall& call) {
  const LinearShape& shape = call.shape;
  if (shape.rows == 0 || shape.out_features == 0) return true;
  if (shape.in_features != 0) return false;
  float* out = call.out->mutable_data_ptr<float>();
  const float* bias = BiasData(call);
  for (int32_t r = 0; r < shape.rows; ++r) {
    for (int32_t j = 0; j < shape.out_features; ++j) {
      const float value = bias != nullptr ? bias[j] : 0.0f;
      out[static_cast<size_t>(r) * shape.out_features + j] = call.relu && value < 0.0f ? 0.0f : value;
    }
  }
  return true;
}

}  // namespace

void LinearOut(KernelRuntimeContext& context, Span<EValue*> stack) {
  constexpr const char* kOp = "pteforge::linear.out";
  LinearCall call;
  if (!Unbox(context, kOp, stack, /*arguments=*/4, ScalarType::Float, /*int16_weights=*/false, /*bias_at=*/2, &call)) {
    return;
  }
  if (WithoutProducts(call)) return;
  if (!LinearF32(call.shape, call.input->const_data_ptr<float>(), call.weight->const_data_ptr<float>(),
                 BiasData(call), call.relu, call.out->mutable_data_ptr<float>())) {
    Fail(context, kOp, "the kernel refused the shape");
  }
}

namespace {

using DynamicKernel = bool (*)(const LinearShape&, const DynamicLinearArgs&);

// linear_dq8.out and linear_dq16.out: the same arguments, their own arithmetic (and
// int16 weights for linear_dq16).
void DynamicLinearOut(KernelRuntimeContext& context, const char* op, Span<EValue*> stack,
                      size_t (*scratch_bytes)(const LinearShape&), DynamicKernel kernel, bool int16_weights) {
  LinearCall call;
  if (!Unbox(context, op, stack, /*arguments=*/6, ScalarType::Char, int16_weights, /*bias_at=*/4, &call)) return;
  EValue* weight_scales = stack[2];
  EValue* input_scales = stack[3];
  if (!IsFloatTensor(weight_scales) || weight_scales->toTensor().dim() != 1 ||
      weight_scales->toTensor().size(0) != call.shape.out_features) {
    Fail(context, op, "weight_scales must be a float32 tensor [n]");
    return;
  }
  if (!input_scales->isNone() && (!IsFloatTensor(input_scales) || input_scales->toTensor().dim() != 1 ||
                                  input_scales->toTensor().size(0) != call.shape.in_features)) {
    Fail(context, op, "input_scales must be None or a float32 tensor [k]");
    return;
  }
  if (WithoutProducts(call)) return;
  auto scratch = context.allocate_temp(scratch_bytes(call.shape), alignof(float));
  if (!scratch.ok()) {
    Fail(context, op, "no scratch memory for the quantized input (a larger temp allocator is needed)",
         Error::MemoryAllocationFailed);
    return;
  }
  DynamicLinearArgs args;
  args.input = call.input->const_data_ptr<float>();
  if (call.weight->scalar_type() == ScalarType::Short) {
    args.weight = nullptr;
    args.weight16 = call.weight->const_data_ptr<int16_t>();
  } else {
    args.weight = call.weight->const_data_ptr<int8_t>();
  }
  args.weight_scales = weight_scales->toTensor().const_data_ptr<float>();
  args.input_scales = input_scales->isNone() ? nullptr : input_scales->toTensor().const_data_ptr<float>();
  args.bias = BiasData(call);
  args.relu = call.relu;
  args.scratch = scratch.get();
  args.out = call.out->mutable_data_ptr<float>();
  if (!kernel(call.shape, args)) Fail(context, op, "the kernel refused the shape");
}

}  // namespace

void LinearDq8Out(KernelRuntimeContext& context, Span<EValue*> stack) {
  DynamicLinearOut(context, "pteforge::linear_dq8.out", stack, LinearDq8ScratchBytes, LinearDq8,
                   /*int16_weights=*/false);
}

void LinearDq16Out(KernelRuntimeContext& context, Span<EValue*> stack) {
  DynamicLinearOut(context, "pteforge::linear_dq16.out", stack, LinearDq16ScratchBytes, LinearDq16,
                   /*int16_weights=*/true);
}

}  // namespace kernels
}  // namespace pteforge
