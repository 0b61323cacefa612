// Log-softmax of a row of logits, for beam search: transformers' generate() takes the
// log-softmax of a step's logits before its beam search's processors and scores. One
// exp per vocabulary entry, so it is written to vectorize: blocks of 8 columns with a
// polynomial exp (Cephes' expf: within 2 ulp of it over the range that matters) that
// the compiler turns into SIMD code, instead of a libm call per column.
#ifndef PTEFORGE_CC_GENERATE_LOG_SOFTMAX_H_
#define PTEFORGE_CC_GENERATE_LOG_SOFTMAX_H_

#include <cstdint>

namespace pteforge {

// values[i] = (values[i] - max) - log(sum_j exp(values[j] - max)), for i < width >= 1.
// -inf columns stay -inf; a row of -inf only becomes NaN, as torch's does.
void LogSoftmax(float* values, int64_t width);

}  // namespace pteforge

#endif  // PTEFORGE_CC_GENERATE_LOG_SOFTMAX_H_
