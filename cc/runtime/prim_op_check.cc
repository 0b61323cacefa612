#include "cc/runtime/prim_op_check.h"

#include <cstdint>
#include <limits>
#include <set>

namespace pteforge {
namespace {

namespace fb = executorch_flatbuffer;

// An operator's name as the runtime resolves it (C strings).
std::string NameOf(const fb::Operator& op) {
  std::string name = op.name()->c_str();
  if (op.overload() != nullptr && op.overload()->c_str()[0] != '\0') name += std::string(".") + op.overload()->c_str();
  return name;
}

bool IsPrimOp(const std::string& name) {
  return name.rfind("executorch_prim::", 0) == 0 || name.rfind("aten::sym_", 0) == 0 ||
         name == "aten::_local_scalar_dense";
}

bool IsIntegerDivision(const std::string& name) {
  return name == "executorch_prim::floordiv.int" || name == "executorch_prim::floordiv.Scalar" ||
         name == "executorch_prim::mod.int" || name == "executorch_prim::mod.Scalar";
}

template <typename Visit>
void ForEachKernelCall(const fb::ExecutionPlan& plan, Visit visit) {
  if (plan.chains() == nullptr) return;
  for (const auto* chain : *plan.chains()) {
    if (chain == nullptr || chain->instructions() == nullptr) continue;
    for (const auto* instruction : *chain->instructions()) {
      const auto* call = instruction ? instruction->instr_args_as_KernelCall() : nullptr;
      if (call != nullptr && call->args() != nullptr && call->args()->size() > 0) {
        visit(NameOf(*plan.operators()->Get(static_cast<flatbuffers::uoffset_t>(call->op_index()))), *call->args());
      }
    }
  }
}

}  // namespace

Status CheckPrimOpConstants(const fb::ExecutionPlan& plan, const std::string& where) {
  // Values known only at run time: method inputs, prim op results, move targets.
  std::set<int32_t> at_run_time;
  if (plan.inputs() != nullptr) at_run_time.insert(plan.inputs()->begin(), plan.inputs()->end());
  ForEachKernelCall(plan, [&](const std::string& name, const flatbuffers::Vector<int32_t>& args) {
    if (IsPrimOp(name)) at_run_time.insert(args.Get(args.size() - 1));
  });
  if (plan.chains() != nullptr) {
    for (const auto* chain : *plan.chains()) {
      if (chain == nullptr || chain->instructions() == nullptr) continue;
      for (const auto* instruction : *chain->instructions()) {
        if (const auto* move = instruction ? instruction->instr_args_as_MoveCall() : nullptr) {
          at_run_time.insert(move->move_to());
        }
      }
    }
  }
  // The constant integer at `index`, if it is one.
  auto constant = [&](int32_t index, int64_t* out) {
    const auto* value = plan.values()->Get(static_cast<flatbuffers::uoffset_t>(index));
    if (at_run_time.count(index) != 0 || value->val_type() != fb::KernelTypes::Int || value->val_as_Int() == nullptr) {
      return false;
    }
    *out = value->val_as_Int()->int_val();
    return true;
  };
  Status status;
  ForEachKernelCall(plan, [&](const std::string& name, const flatbuffers::Vector<int32_t>& args) {
    if (!status.ok() || args.size() < 3) return;
    int64_t a = 0, b = 0;
    if (name == "aten::sym_size.int") {
      // Exported programs ask for a fixed dimension; one known only at run time (a
      // method input, another op's result) could be any.
      const auto* tensor = plan.values()->Get(static_cast<flatbuffers::uoffset_t>(args.Get(0)))->val_as_Tensor();
      const int64_t rank = tensor && tensor->sizes() ? static_cast<int64_t>(tensor->sizes()->size()) : 0;
      if (!constant(args.Get(1), &b)) {
        status = Failure(Error::InvalidProgram, "the program is corrupted: %s: aten::sym_size.int asks for a dimension known only at run time",
                         where.c_str());
      } else if (b < 0 || b >= rank) {
        status = Failure(Error::InvalidProgram, "the program is corrupted: %s: aten::sym_size.int asks for dimension %lld of a %lld-dimensional tensor",
                         where.c_str(), static_cast<long long>(b), static_cast<long long>(rank));
      }
    } else if (IsIntegerDivision(name) && constant(args.Get(1), &b)) {
      const bool overflow = constant(args.Get(0), &a) && a == std::numeric_limits<int64_t>::min() && b == -1;
      if (b == 0 || overflow) {
        status = Failure(Error::InvalidProgram, "the program is corrupted: %s: %s divides by %lld", where.c_str(),
                         name.c_str(), static_cast<long long>(b));
      }
    }
  });
  return status;
}

}  // namespace pteforge
