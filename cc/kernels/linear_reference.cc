// pteforge's linear operators in portable C++: the reference kernels of x86_64 and
// aarch64 (and of the exporter's conformance check, which runs them in ExecuTorch's
// Python runtime). Plain loops in the order of the definitions in ops.py.
#include "cc/kernels/dynamic_quantization.h"
#include "cc/kernels/linear.h"

namespace pteforge {
namespace kernels {

namespace {

template <typename T, typename W>
bool LinearDynamic(const LinearShape& shape, const DynamicLinearArgs& args, const W* weight) {
  const QuantizedRows<T> rows = SplitScratch<T>(shape, args.scratch);
  QuantizeRows(shape, args.input, args.input_scales, rows);
  const int32_t k = shape.in_features;
  for (int32_t r = 0; r < shape.rows; ++r) {
    const T* row = rows.values + static_cast<size_t>(r) * k;
    for (int32_t j = 0; j < shape.out_features; ++j) {
      const W* column = weight + static_cast<size_t>(j) * k;
      int64_t sum = 0;  // exact for any k a tensor can have
      for (int32_t i = 0; i < k; ++i) sum += static_cast<int64_t>(row[i]) * column[i];
      args.out[static_cast<size_t>(r) * shape.out_features + j] = DequantizedValue(
          sum, rows.row_scales[r], args.weight_scales[j], args.bias ? args.bias + j : nullptr, args.relu);
    }
  }
  return true;
}

}  // namespace

bool LinearF32(const LinearShape& shape, const float* input, const float* weight, const float* bias, bool relu,
               float* out) {
  const int32_t k = shape.in_features;
  for (int32_t r = 0; r < shape.rows; ++r) {
    const float* row = input + static_cast<size_t>(r) * k;
    for (int32_t j = 0; j < shape.out_features; ++j) {
      const float* column = weight + static_cast<size_t>(j) * k;
      float sum = 0.0f;
      for (int32_t i = 0; i < k; ++i) sum += row[i] * column[i];
      if (bias != nullptr) sum += bias[j];
      out[static_cast<size_t>(r) * shape.out_features + j] = relu && sum < 0.0f ? 0.0f : sum;
    }
  }
  return true;
}

bool LinearDq8(const LinearShape& shape, const DynamicLinearArgs& args) {
  return LinearDynamic<int8_t>(shape, args, args.weight);
}

bool LinearDq16(const LinearShape& shape, const DynamicLinearArgs& args) {
  return args.weight16 != nullptr ? LinearDynamic<int16_t>(shape, args, args.weight16)
                                  : LinearDynamic<int16_t>(shape, args, args.weight);
}

}  // namespace kernels
}  // namespace pteforge
