// The arithmetic of pteforge's linear operators on plain arrays, without ExecuTorch
// types: what op_linear.cc calls once it has checked the tensors.
//
// Two implementations with one contract (python/pteforge/cortex_m/ops.py defines it):
// linear_reference.cc (portable C++, x86_64 and aarch64) and linear_cmsis_nn.cc (Arm's
// CMSIS-NN Helium kernels, Cortex-M55). Bazel links one of them.
#ifndef PTEFORGE_CC_KERNELS_LINEAR_H_
#define PTEFORGE_CC_KERNELS_LINEAR_H_

#include <cstddef>
#include <cstdint>

namespace pteforge {
namespace kernels {

// A linear layer applied to `rows` input rows: input [rows, in_features], weight
// [out_features, in_features] (PyTorch's layout), out [rows, out_features].
struct LinearShape {
  int32_t rows;
  int32_t in_features;
  int32_t out_features;
};

// out = input . weight^T + bias (bias may be null), then max(0, .) if relu.
// Returns false if the implementation refused the shape.
bool LinearF32(const LinearShape& shape, const float* input, const float* weight, const float* bias,
               bool relu, float* out);

// The dynamically quantized linear layers (ops.py, linear_dq8 and linear_dq16): each input
// row, times input_scales [in_features] if not null, quantized to int8 (int16) with its
// own scale, exact integer sums with the int8 weight (linear_dq16: or the int16 one),
// then out = float(sum) * row_scale * weight_scales[j] + bias[j] (bias may be null), ReLU
// if relu. `scratch` holds LinearDq8ScratchBytes(shape) (LinearDq16ScratchBytes) bytes,
// aligned to 4: the quantized input and its row scales.
struct DynamicLinearArgs {
  const float* input;
  const int8_t* weight;             // null when weight16 is given
  const int16_t* weight16 = nullptr;  // linear_dq16 only: int16 weights instead
  const float* weight_scales;
  const float* input_scales;  // may be null
  const float* bias;          // may be null
  bool relu;
  void* scratch;
  float* out;
};

size_t LinearDq8ScratchBytes(const LinearShape& shape);
bool LinearDq8(const LinearShape& shape, const DynamicLinearArgs& args);

size_t LinearDq16ScratchBytes(const LinearShape& shape);
bool LinearDq16(const LinearShape& shape, const DynamicLinearArgs& args);

}  // namespace kernels
}  // namespace pteforge

#endif  // PTEFORGE_CC_KERNELS_LINEAR_H_
