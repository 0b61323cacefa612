// pteforge's operators as ExecuTorch kernels (boxed: the form the runtime's kernel
// registry calls), for whichever implementation of linear.h is linked.
//
// A program names them pteforge::linear.out, pteforge::linear_dq8.out and
// pteforge::linear_dq16.out (python/pteforge/cortex_m/ops.py has their schemas and eager
// definitions), pteforge::stft_magnitude.out and pteforge::lstm_cell.out
// (python/pteforge/cortex_m/stft_op.py, lstm_op.py) and pteforge::cached_attention.out
// (python/pteforge/lower/attention_op.py). The linear kernels are ops.cc's (:ops, on
// CMSIS-NN on the Cortex-M55); the others are stft_op.cc's, lstm_op.cc's and
// attention_op.cc's (:stft_op, :lstm_op, :attention_op, plain C++ on every target, so an
// image registers them whenever a program uses them, with or without CMSIS-NN). They
// are registered
// by a generated list (cc/kernels/gen_registration.py):
// all of them for the Linux tools and the exporter's Python runtime, only those a
// program uses in a microcontroller image (pte_kernels).
//
// Bad arguments (a wrong kind, dtype or shape, too little scratch memory) fail the call
// with Error::InvalidArgument or MemoryAllocationFailed and a log line naming the
// operator; they never abort.
#ifndef PTEFORGE_CC_KERNELS_OPS_H_
#define PTEFORGE_CC_KERNELS_OPS_H_

#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>

namespace pteforge {
namespace kernels {

// pteforge::linear.out(Tensor input, Tensor weight, Tensor? bias, bool relu, *, Tensor(a!) out)
void LinearOut(executorch::runtime::KernelRuntimeContext& context,
               executorch::runtime::Span<executorch::runtime::EValue*> stack);

// pteforge::linear_dq8.out(Tensor input, Tensor weight, Tensor weight_scales,
//                          Tensor? input_scales, Tensor? bias, bool relu, *, Tensor(a!) out)
void LinearDq8Out(executorch::runtime::KernelRuntimeContext& context,
                  executorch::runtime::Span<executorch::runtime::EValue*> stack);

// pteforge::linear_dq16.out: the same arguments as linear_dq8.out.
void LinearDq16Out(executorch::runtime::KernelRuntimeContext& context,
                   executorch::runtime::Span<executorch::runtime::EValue*> stack);

// pteforge::lstm_cell.out(Tensor input_gates, Tensor hidden_gates, Tensor cell, *,
//                         Tensor(a!) hidden, Tensor(b!) cell_next)
void LstmCellOut(executorch::runtime::KernelRuntimeContext& context,
                 executorch::runtime::Span<executorch::runtime::EValue*> stack);

// pteforge::stft_magnitude.out(Tensor signal, Tensor window, int hop, *, Tensor(a!) out)
void StftMagnitudeOut(executorch::runtime::KernelRuntimeContext& context,
                      executorch::runtime::Span<executorch::runtime::EValue*> stack);

// pteforge::cached_attention.out(Tensor query, Tensor keys, Tensor values, Tensor? mask,
//                                Tensor? position_bias, float scale, *, Tensor(a!) out)
void CachedAttentionOut(executorch::runtime::KernelRuntimeContext& context,
                        executorch::runtime::Span<executorch::runtime::EValue*> stack);

}  // namespace kernels
}  // namespace pteforge

#endif  // PTEFORGE_CC_KERNELS_OPS_H_
