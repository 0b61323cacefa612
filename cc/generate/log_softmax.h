// Log-softmax of a row of logits, for beam search: transformers' generate() takes the
// log-softmax of a step's logits before its beam search's processors and scores. One
// exp per vocabulary entry (4 x 51865 a step for Whisper with 4 beams), so every pass
// runs on vectors (cc/simd/vectors.h: 8 lanes on x86-64 CPUs with AVX2, else 4) with a
// polynomial exp. Written as plain
// loops, the compiler did not vectorize them at -O2 (26 ns per column: 5.5 ms of a
// 12.8 ms Whisper int8 beam step, measured with perf).
#ifndef PTEFORGE_CC_GENERATE_LOG_SOFTMAX_H_
#define PTEFORGE_CC_GENERATE_LOG_SOFTMAX_H_

#include <cstdint>

namespace pteforge {

// values[i] = (values[i] - max) - log(sum_j exp(values[j] - max)), for i < width >= 1.
// -inf columns stay -inf; a row of -inf only becomes NaN, as torch's does.
void LogSoftmax(float* values, int64_t width);

}  // namespace pteforge

#endif  // PTEFORGE_CC_GENERATE_LOG_SOFTMAX_H_
