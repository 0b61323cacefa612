// pteforge::lstm_cell.out's boxed kernel (declared in ops.h), over lstm.h.
#include <cstddef>
#include <cstdint>

#include "cc/kernels/lstm.h"
#include "cc/kernels/ops.h"
#include "cc/kernels/unboxing.h"

namespace pteforge {
namespace kernels {

void LstmCellOut(KernelRuntimeContext& context, Span<EValue*> stack) {
  constexpr const char* kOp = "pteforge::lstm_cell.out";
  // input_gates, hidden_gates, cell, the two out tensors, and the returned pair.
  if (stack.size() != 6) {
    Fail(context, kOp, "wrong number of arguments");
    return;
  }
  for (size_t i = 0; i < 5; ++i) {
    if (!IsFloatTensor(stack[i]) || stack[i]->toTensor().dim() != 2) {
      Fail(context, kOp, "every argument must be a 2-D float32 tensor");
      return;
    }
  }
  const Tensor& input_gates = stack[0]->toTensor();
  const Tensor& hidden_gates = stack[1]->toTensor();
  const Tensor& cell = stack[2]->toTensor();
  const int64_t batch = cell.size(0), hidden_size = cell.size(1);
  if (input_gates.size(0) != batch || input_gates.size(1) != 4 * hidden_size ||
      hidden_gates.sizes() != input_gates.sizes()) {
    Fail(context, kOp, "the gates must be [B, 4H] for a cell [B, H]");
    return;
  }
  Tensor& hidden = stack[3]->toTensor();
  Tensor& cell_next = stack[4]->toTensor();
  if (executorch::runtime::resize_tensor(hidden, cell.sizes()) != Error::Ok ||
      executorch::runtime::resize_tensor(cell_next, cell.sizes()) != Error::Ok) {
    Fail(context, kOp, "cannot resize the outputs to the cell's shape");
    return;
  }
  LstmCell(batch, hidden_size, input_gates.const_data_ptr<float>(), hidden_gates.const_data_ptr<float>(),
           cell.const_data_ptr<float>(), hidden.mutable_data_ptr<float>(), cell_next.mutable_data_ptr<float>());
}

}  // namespace kernels
}  // namespace pteforge
