#include "cc/runtime/checks/prim_op_check.h"

#include <cmath>
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
  // The constant number (Int or Double) at `index`, if it is one.
  auto number = [&](int32_t index, double* out) {
    int64_t integer = 0;
    if (constant(index, &integer)) {
      *out = static_cast<double>(integer);
      return true;
    }
    const auto* value = plan.values()->Get(static_cast<flatbuffers::uoffset_t>(index));
    if (at_run_time.count(index) != 0 || value->val_as_Double() == nullptr) return false;
    *out = value->val_as_Double()->double_val();
    return true;
  };
  Status status;
  ForEachKernelCall(plan, [&](const std::string& name, const flatbuffers::Vector<int32_t>& args) {
    if (!status.ok()) return;
    if (name == "aten::arange.start_out" && args.size() >= 4) {
      // The kernel aborts on a negative length (ceil((end - start) / step), an int64):
      // a step of 0 or one so small that the length overflows (found by the Session
      // fuzzer: 1e-320), or one pointing away from `end`. Exported programs step by a
      // constant; with a bound known only at run time, |step| >= 1e-6 keeps the length
      // of integer bounds within int64, but its sign is not checked (docs/runtime.md).
      double start = 0, end = 0, step = 0;
      const bool known = number(args.Get(0), &start) && number(args.Get(1), &end);
      if (!number(args.Get(2), &step) || !(std::fabs(step) >= 1e-6 && std::isfinite(step)) ||
          (known && !(std::ceil((end - start) / step) >= 0 && std::ceil((end - start) / step) < 1e15))) {
        status = Failure(Error::InvalidProgram, "the program is corrupted: %s: aten::arange.start_out cannot step from %g to %g by %g",
                         where.c_str(), start, end, step);
      }
      return;
    }
    if (name == "aten::arange.out" && args.size() >= 2) {
      double end = 0;
      if (number(args.Get(0), &end) && !(end >= 0 && end < 1e15)) {
        status = Failure(Error::InvalidProgram, "the program is corrupted: %s: aten::arange.out to %g", where.c_str(), end);
      }
      return;
    }
    if (args.size() < 3) return;
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
