// What every implementation of the dynamically quantized linear layers shares, so that
// they give the same bits: quantizing the input rows (to int8 or int16), and turning an
// exact integer sum into the float result. Only the integer products in between differ
// (plain loops, CMSIS-NN, Helium).
//
// Compiled with -ffp-contract=off (BUILD.bazel): `sum * scale * weight_scale + bias`
// must be two roundings of a product and one of a sum, as in eager PyTorch, never a
// fused multiply-add (GCC fuses by default on aarch64 and the Cortex-M55).
#ifndef PTEFORGE_CC_KERNELS_DYNAMIC_QUANTIZATION_H_
#define PTEFORGE_CC_KERNELS_DYNAMIC_QUANTIZATION_H_

#include <cstddef>
#include <cstdint>

#include "cc/kernels/linear.h"

namespace pteforge {
namespace kernels {

// Where a dynamically quantized linear's scratch puts each part (row scales first:
// 4-byte aligned), for activations of type T (int8_t or int16_t).
template <typename T>
struct QuantizedRows {
  float* row_scales;  // [rows]
  T* values;          // [rows, in_features]
};

template <typename T>
QuantizedRows<T> SplitScratch(const LinearShape& shape, void* scratch) {
  float* row_scales = static_cast<float*>(scratch);
  return {row_scales, reinterpret_cast<T*>(row_scales + shape.rows)};
}

template <typename T>
size_t ScratchBytes(const LinearShape& shape) {
  return static_cast<size_t>(shape.rows) * sizeof(float) +
         static_cast<size_t>(shape.rows) * static_cast<size_t>(shape.in_features) * sizeof(T);
}

// Quantizes input [rows, in_features] row by row, with L = 127 (int8) or 32767 (int16):
// x = input * input_scales (per feature; input itself when null), amax = max |x|, inv =
// L / amax (0 when amax is 0), q = clamp(round_half_even(x * inv), -L, L); row_scales[r] =
// amax / L.
void QuantizeRows(const LinearShape& shape, const float* input, const float* input_scales,
                  QuantizedRows<int8_t> rows);
void QuantizeRows(const LinearShape& shape, const float* input, const float* input_scales,
                  QuantizedRows<int16_t> rows);

// One result: float(sum) * row_scale * weight_scale + bias (bias may be null: none),
// then ReLU if relu (NaN stays NaN, as in torch.relu). `sum` is exact, so an int32 and
// an int64 holding the same value give the same float. (A template: int32 converts in one
// instruction on the Cortex-M55, int64 through a library call.)
template <typename Sum>
inline float DequantizedValue(Sum sum, float row_scale, float weight_scale, const float* bias, bool relu) {
  float value = static_cast<float>(sum) * row_scale;
  value = value * weight_scale;
  if (bias != nullptr) value = value + *bias;
  return relu && value < 0.0f ? 0.0f : value;
}

// DequantizedValue over int32 sums [rows, out_features], which may be `out` itself (int32
// and float32 have one size): each element is read before it is written.
void DequantizeSums(const LinearShape& shape, const int32_t* sums, const float* row_scales,
                    const float* weight_scales, const float* bias, bool relu, float* out);

}  // namespace kernels
}  // namespace pteforge

#endif  // PTEFORGE_CC_KERNELS_DYNAMIC_QUANTIZATION_H_
