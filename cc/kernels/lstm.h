// The arithmetic of pteforge::lstm_cell (python/pteforge/cortex_m/lstm_op.py has its
// definition in eager PyTorch): an LSTM cell's gates and state update after its two
// products, one pass over the gates instead of a dozen elementwise kernels.
//
// In float32 with the C library's expf and tanhf, as ExecuTorch's portable sigmoid
// (1 / (1 + exp(-x))) and tanh kernels compute them; compiled with -ffp-contract=off,
// each product and sum rounds on its own, as in eager PyTorch.
#ifndef PTEFORGE_CC_KERNELS_LSTM_H_
#define PTEFORGE_CC_KERNELS_LSTM_H_

#include <cstdint>

namespace pteforge {
namespace kernels {

// For each row b < batch and j < hidden_size, with gates = input_gates + hidden_gates
// ([batch, 4 * hidden_size], gates i, f, g, o):
//   cell_next = sigmoid(f) * cell + sigmoid(i) * tanh(g);  hidden = sigmoid(o) * tanh(cell_next)
// `hidden` and `cell_next` may not alias the inputs.
void LstmCell(int64_t batch, int64_t hidden_size, const float* input_gates, const float* hidden_gates,
              const float* cell, float* hidden, float* cell_next);

}  // namespace kernels
}  // namespace pteforge

#endif  // PTEFORGE_CC_KERNELS_LSTM_H_
