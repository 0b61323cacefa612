// pteforge::cached_attention.out as an ExecuTorch kernel (boxed), over attention.h:
//
//   pteforge::cached_attention.out(Tensor query, Tensor keys, Tensor values, Tensor? mask,
//                                  Tensor? position_bias, float scale, *, Tensor(a!) out)
//
// (python/pteforge/seq2seq/attention_op.py has the schema and the eager definition.)
// Plain C++ on every target, the Cortex-M55 included, without CMSIS-NN: an image
// registers it whenever a program uses it. Bad arguments fail the call with
// Error::InvalidArgument (or MemoryAllocationFailed for the scratch) and a log line.
#ifndef PTEFORGE_CC_KERNELS_ATTENTION_OP_H_
#define PTEFORGE_CC_KERNELS_ATTENTION_OP_H_

#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>

namespace pteforge {
namespace kernels {

void CachedAttentionOut(executorch::runtime::KernelRuntimeContext& context,
                        executorch::runtime::Span<executorch::runtime::EValue*> stack);

}  // namespace kernels
}  // namespace pteforge

#endif  // PTEFORGE_CC_KERNELS_ATTENTION_OP_H_
