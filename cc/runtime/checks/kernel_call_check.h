// What one kernel call passes, checked before the kernel unboxes it: ExecuTorch's
// kernels take their arguments' kinds on trust (a wrong kind aborts), write into
// whatever their out arguments hold (constant data: the program itself), and copy
// between arguments with memcpy. Part of CheckProgram (program_check.h), which has
// checked every value index and tensor by then.
#ifndef PTEFORGE_CC_RUNTIME_CHECKS_KERNEL_CALL_CHECK_H_
#define PTEFORGE_CC_RUNTIME_CHECKS_KERNEL_CALL_CHECK_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "program_generated.h"

namespace pteforge {

// Bytes per element of a dtype, 0 for one the runtime does not know.
size_t ElementBytes(executorch_flatbuffer::ScalarType type);

// A tensor's planned bytes: element size times its (upper-bound) sizes. Only for
// tensors CheckProgram accepted (no negative sizes, within kMaxPlannedBufferBytes).
uint64_t TensorBytes(const executorch_flatbuffer::Tensor& tensor);

class KernelCallCheck {
 public:
  // `inputs`: the plan's input value indices (their data comes with each call); kept
  // by reference. Cheap to make: one per call.
  KernelCallCheck(const executorch_flatbuffer::ExecutionPlan& plan, const std::vector<int32_t>& inputs);

  // What is wrong with `call` (`where` names its instruction), or "" if nothing: the
  // number and kinds of its arguments against the operator's schema (generated from
  // the installed torch and executorch, gen_op_schemas.py), a write into a constant, a
  // tensor with no memory, two tensors partly overlapping in planned memory.
  std::string Problem(const std::string& where, const executorch_flatbuffer::KernelCall& call) const;

  // Whether value `index` is constant data of the program, or a list holding some.
  bool IsConstant(int32_t index) const;

 private:
  std::string PartialOverlap(const std::string& where, const std::string& name,
                             const executorch_flatbuffer::KernelCall& call) const;
  bool HasNoData(int32_t index) const;

  const executorch_flatbuffer::ExecutionPlan& plan_;
  const std::vector<int32_t>& inputs_;  // the caller's, outliving this check
  size_t values_;
};

}  // namespace pteforge

#endif  // PTEFORGE_CC_RUNTIME_CHECKS_KERNEL_CALL_CHECK_H_
