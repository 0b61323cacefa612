#include "cc/kernels/dynamic_quantization.h"

#include <cmath>
#include <cstring>

namespace pteforge {
namespace kernels {

namespace {

template <typename T, int kLevels, bool kScaled>
void QuantizeRowsTo(const LinearShape& shape, const float* input, const float* input_scales,
                    QuantizedRows<T> rows) {
  constexpr float kLimit = static_cast<float>(kLevels);
  const int32_t k = shape.in_features;
  // x * input_scales[i] is computed twice, for the maximum and for the value: the same
  // rounding both times, and no buffer for it.
  auto value = [input_scales](const float* row, int32_t i) { return kScaled ? row[i] * input_scales[i] : row[i]; };
  for (int32_t r = 0; r < shape.rows; ++r) {
    const float* row = input + static_cast<size_t>(r) * k;
    float amax = 0.0f;
    for (int32_t i = 0; i < k; ++i) amax = std::fmax(amax, std::fabs(value(row, i)));
    const float inverse = amax > 0.0f ? kLimit / amax : 0.0f;
    T* values = rows.values + static_cast<size_t>(r) * k;
    for (int32_t i = 0; i < k; ++i) {
      // nearbyint: the current rounding mode, round-half-to-even as torch.round.
      const float q = std::nearbyint(value(row, i) * inverse);
      values[i] = static_cast<T>(q > kLimit ? kLimit : (q < -kLimit ? -kLimit : q));
    }
    rows.row_scales[r] = amax / kLimit;
  }
}

template <typename T, int kLevels>
void QuantizeRowsTo(const LinearShape& shape, const float* input, const float* input_scales,
                    QuantizedRows<T> rows) {
  if (input_scales != nullptr) {
    QuantizeRowsTo<T, kLevels, true>(shape, input, input_scales, rows);
  } else {
    QuantizeRowsTo<T, kLevels, false>(shape, input, input_scales, rows);
  }
}

}  // namespace

size_t LinearDq8ScratchBytes(const LinearShape& shape) { return ScratchBytes<int8_t>(shape); }

size_t LinearDq16ScratchBytes(const LinearShape& shape) { return ScratchBytes<int16_t>(shape); }

void QuantizeRows(const LinearShape& shape, const float* input, const float* input_scales,
                  QuantizedRows<int8_t> rows) {
  QuantizeRowsTo<int8_t, 127>(shape, input, input_scales, rows);
}

void QuantizeRows(const LinearShape& shape, const float* input, const float* input_scales,
                  QuantizedRows<int16_t> rows) {
  QuantizeRowsTo<int16_t, 32767>(shape, input, input_scales, rows);
}

void DequantizeSums(const LinearShape& shape, const int32_t* sums, const float* row_scales,
                    const float* weight_scales, const float* bias, bool relu, float* out) {
  const int32_t n = shape.out_features;
  for (int32_t r = 0; r < shape.rows; ++r) {
    const size_t base = static_cast<size_t>(r) * n;
    for (int32_t j = 0; j < n; ++j) {
      int32_t sum;  // memcpy: `sums` may be `out` itself
      std::memcpy(&sum, reinterpret_cast<const char*>(sums) + (base + j) * sizeof(int32_t), sizeof(sum));
      const float value = DequantizedValue(sum, row_scales[r], weight_scales[j], bias ? bias + j : nullptr, relu);
      std::memcpy(out + base + j, &value, sizeof(value));
    }
  }
}

}  // namespace kernels
}  // namespace pteforge
