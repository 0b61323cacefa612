// Checks the constant arguments of ExecuTorch's primitive operators that trust them.
//
// The prim ops (kernels/prim_ops/register_prim_ops.cpp) compute sizes and integer
// arithmetic between kernels. Two trust their arguments: aten::sym_size.int asks a
// tensor for dimension `dim` and aborts when it has none (an ET_CHECK), and the integer
// floordiv and mod divide, trapping (SIGFPE) on a zero divisor or INT64_MIN / -1.
// sym_size's dimension must be a constant within the tensor's rank (exported programs
// never compute it); for the division, a value some instruction writes, or the caller
// gives, is only known at run time, and the constants a program carries are checked.
// sym_size's were found by the Session fuzzer.
#ifndef PTEFORGE_CC_RUNTIME_CHECKS_PRIM_OP_CHECK_H_
#define PTEFORGE_CC_RUNTIME_CHECKS_PRIM_OP_CHECK_H_

#include <string>

#include "cc/runtime/status.h"
#include "program_generated.h"

namespace pteforge {

// `plan`'s indices and argument kinds are already checked; `where` prefixes messages.
Status CheckPrimOpConstants(const executorch_flatbuffer::ExecutionPlan& plan, const std::string& where);

}  // namespace pteforge

#endif  // PTEFORGE_CC_RUNTIME_CHECKS_PRIM_OP_CHECK_H_
