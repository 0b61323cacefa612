// pteforge's linear operators on the Cortex-M55's Helium (MVE) vector unit.
//
//   LinearF32   CMSIS-NN's arm_fully_connected_f32 (its float32 API; weights in
//               PyTorch's [out, in] layout; ReLU as its activation clamp).
//   LinearDq8   the rows quantized as every implementation does
//               (dynamic_quantization.cc), int8 x int8 -> int32 sums by CMSIS-NN's
//               arm_nn_mat_mult_nt_t_s8_s32 (16 multiply-accumulates per vmladava),
//               then the shared epilogue: the same bits as the reference kernels.
//   LinearDq16  int16 x int8 sums by pteforge's own Helium loop (vmladava on int16
//               lanes, the weights widened as they load): CMSIS-NN's int16 kernels
//               requantize every result to int16 with a scale fixed in advance, which
//               a dynamically quantized layer does not have; its raw-sum kernel is int8
//               only. With int16 weights the same loop sums int16 x int16 into int64
//               (vmlaldava). Same bits as the reference kernels, like LinearDq8.
#include <arm_mve.h>

#include <cmath>
#include <cstring>

#include "arm_nnfunctions.h"
#include "arm_nnsupportfunctions.h"
#include "cc/kernels/dynamic_quantization.h"
#include "cc/kernels/linear.h"

namespace pteforge {
namespace kernels {

namespace {

// Up to this many int16 x int8 products, |sum| <= k * 32767 * 127 fits an int32.
constexpr int32_t kInt32SumLimit = 516;

// Accumulates x . w over 8 lanes (lanes a predicate cleared were loaded as zero).
template <typename Sum>
Sum Accumulate(Sum sum, int16x8_t x, int16x8_t w) {
  if constexpr (sizeof(Sum) == 4) {
    return vmladavaq_s16(sum, x, w);
  } else {
    return vmlaldavaq_s16(sum, x, w);
  }
}

// Eight weights as int16 lanes: int8 ones widened as they load; under a predicate, the
// lanes it clears zero.
inline int16x8_t LoadWeights(const int8_t* w) { return vldrbq_s16(w); }
inline int16x8_t LoadWeights(const int16_t* w) { return vldrhq_s16(w); }
inline int16x8_t LoadWeights(const int8_t* w, mve_pred16_t p) { return vldrbq_z_s16(w, p); }
inline int16x8_t LoadWeights(const int16_t* w, mve_pred16_t p) { return vldrhq_z_s16(w, p); }

// One int16 row against four weight rows (W: int8 or int16): sums[c] = x . w[c] over k
// values, in Sum (int32 when the sums fit it, else int64). Whole blocks of 8
// unpredicated, so the loop keeps its pointers and sums in registers; the tail under a
// predicate.
template <typename Sum, typename W>
void DotFour(const int16_t* x, const W* w0, const W* w1, const W* w2, const W* w3, int32_t k, Sum sums[4]) {
  Sum a0 = 0, a1 = 0, a2 = 0, a3 = 0;
  for (int32_t blocks = k / 8; blocks > 0; --blocks) {
    const int16x8_t xv = vldrhq_s16(x);
    a0 = Accumulate(a0, xv, LoadWeights(w0));
    a1 = Accumulate(a1, xv, LoadWeights(w1));
    a2 = Accumulate(a2, xv, LoadWeights(w2));
    a3 = Accumulate(a3, xv, LoadWeights(w3));
    x += 8;
    w0 += 8;
    w1 += 8;
    w2 += 8;
    w3 += 8;
  }
  if (k % 8 != 0) {
    const mve_pred16_t p = vctp16q(static_cast<uint32_t>(k % 8));
    const int16x8_t xv = vldrhq_z_s16(x, p);  // lanes past k are zero
    a0 = Accumulate(a0, xv, LoadWeights(w0, p));
    a1 = Accumulate(a1, xv, LoadWeights(w1, p));
    a2 = Accumulate(a2, xv, LoadWeights(w2, p));
    a3 = Accumulate(a3, xv, LoadWeights(w3, p));
  }
  sums[0] = a0;
  sums[1] = a1;
  sums[2] = a2;
  sums[3] = a3;
}

template <typename Sum, typename W>
void LinearDq16Rows(const LinearShape& shape, const DynamicLinearArgs& args, const W* weight,
                    QuantizedRows<int16_t> rows) {
  const int32_t k = shape.in_features;
  const int32_t n = shape.out_features;
  for (int32_t j = 0; j < n; j += 4) {
    // The last block repeats its last row where n is not a multiple of 4.
    const W* w[4];
    for (int32_t c = 0; c < 4; ++c) w[c] = weight + static_cast<size_t>(j + c < n ? j + c : n - 1) * k;
    for (int32_t r = 0; r < shape.rows; ++r) {
      Sum sums[4];
      DotFour<Sum>(rows.values + static_cast<size_t>(r) * k, w[0], w[1], w[2], w[3], k, sums);
      for (int32_t c = 0; c < 4 && j + c < n; ++c) {
        args.out[static_cast<size_t>(r) * n + j + c] =
            DequantizedValue(sums[c], rows.row_scales[r], args.weight_scales[j + c],
                             args.bias ? args.bias + j + c : nullptr, args.relu);
      }
    }
  }
}

}  // namespace

bool LinearF32(const LinearShape& shape, const float* input, const float* weight, const float* bias, bool relu,
               float* out) {
  const cmsis_nn_context context = {nullptr, 0};  // the standard layout needs no scratch
  cmsis_nn_fc_params_f32 params;
  params.activation.min = relu ? 0.0f : -INFINITY;
  params.activation.max = INFINITY;
  params.weight_format = ARM_NN_WEIGHT_FORMAT_STANDARD;
  const cmsis_nn_dims input_dims = {shape.rows, 1, 1, shape.in_features};
  const cmsis_nn_dims filter_dims = {shape.in_features, 1, 1, shape.out_features};
  const cmsis_nn_dims bias_dims = {1, 1, 1, shape.out_features};
  const cmsis_nn_dims output_dims = {shape.rows, 1, 1, shape.out_features};
  return arm_fully_connected_f32(&context, &params, &input_dims, input, &filter_dims, weight, &bias_dims, bias,
                                 &output_dims, out, ARM_NN_LAYOUT_NHWC) == ARM_CMSIS_NN_SUCCESS;
}

bool LinearDq8(const LinearShape& shape, const DynamicLinearArgs& args) {
  const QuantizedRows<int8_t> rows = SplitScratch<int8_t>(shape, args.scratch);
  QuantizeRows(shape, args.input, args.input_scales, rows);
  // The int32 sums go where the results will be; the kernel adds to what is there.
  int32_t* sums = reinterpret_cast<int32_t*>(args.out);
  std::memset(sums, 0, static_cast<size_t>(shape.rows) * shape.out_features * sizeof(int32_t));
  // lhs [rows, k] times rhs [n, k]^T (CMSIS-NN names k "rhs_rows" and n "rhs_cols"),
  // no input offset (symmetric quantization), results one after another.
  const arm_cmsis_nn_status status =
      arm_nn_mat_mult_nt_t_s8_s32(rows.values, args.weight, sums, shape.rows, shape.in_features,
                                  shape.out_features, /*lhs_offset=*/0, /*dst_idx_offset=*/1);
  if (status != ARM_CMSIS_NN_SUCCESS) return false;
  DequantizeSums(shape, sums, rows.row_scales, args.weight_scales, args.bias, args.relu, args.out);
  return true;
}

bool LinearDq16(const LinearShape& shape, const DynamicLinearArgs& args) {
  const QuantizedRows<int16_t> rows = SplitScratch<int16_t>(shape, args.scratch);
  QuantizeRows(shape, args.input, args.input_scales, rows);
  if (args.weight16 != nullptr) {
    // 32767^2 x k overflows an int32 from k = 2.
    LinearDq16Rows<int64_t>(shape, args, args.weight16, rows);
  } else if (shape.in_features <= kInt32SumLimit) {
    LinearDq16Rows<int32_t>(shape, args, args.weight, rows);
  } else {
    LinearDq16Rows<int64_t>(shape, args, args.weight, rows);
  }
  return true;
}

}  // namespace kernels
}  // namespace pteforge
