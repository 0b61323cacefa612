// CheckProgram: one checker walks each execution plan (buffers, values, operators,
// delegates, instructions); kernel calls' arguments are kernel_call_check.cc's, prim
// ops' constants prim_op_check.cc's, delegate payloads delegate_check.cc's.
#include "cc/runtime/checks/program_check.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "cc/runtime/checks/delegate_check.h"
#include "cc/runtime/checks/kernel_call_check.h"
#include "cc/runtime/checks/prim_op_check.h"
#include "flatbuffers/flatbuffers.h"
#include "program_generated.h"

namespace pteforge {
namespace {

namespace fb = executorch_flatbuffer;

// Whether a vector's 8-byte items are aligned. The flatbuffers verifier checks a
// vector's length field (4 bytes) only; the runtime then loads the items as 8-byte
// values, undefined behaviour when misaligned (UBSan: found by the Session fuzzer) and
// a fault on cores without unaligned 8-byte loads (Cortex-M LDRD).
template <typename T>
bool Aligned(const flatbuffers::Vector<T>* items) {
  return items == nullptr || reinterpret_cast<uintptr_t>(items->data()) % alignof(T) == 0;
}

// Checks one execution plan; `where` prefixes every message.
class PlanChecker {
 public:
  PlanChecker(const fb::Program& program, const fb::ExecutionPlan& plan, const uint8_t* data, size_t size,
              std::string where)
      : program_(program), plan_(plan), data_(data), size_(size), where_(std::move(where)),
        values_(plan.values() ? plan.values()->size() : 0) {}

  Status Check() {
    PTEFORGE_RETURN_IF_ERROR(CheckBufferSizes());
    if (plan_.inputs() != nullptr) {
      for (int32_t index : *plan_.inputs()) {
        if (index >= 0) inputs_.push_back(index);
      }
    }
    PTEFORGE_RETURN_IF_ERROR(CheckIndices(plan_.inputs(), "an input"));
    for (int32_t input : inputs_) {
      if (KernelCallCheck(plan_, inputs_).IsConstant(input)) return Bad("input value " + std::to_string(input) + " is a constant: the caller's data would overwrite the program");
    }
    PTEFORGE_RETURN_IF_ERROR(CheckIndices(plan_.outputs(), "an output"));
    for (size_t i = 0; i < values_; ++i) PTEFORGE_RETURN_IF_ERROR(CheckValue(i));
    if (plan_.operators() != nullptr) {
      for (const auto* op : *plan_.operators()) {
        if (op == nullptr || op->name() == nullptr) return Bad("an operator has no name");
      }
    }
    if (plan_.delegates() != nullptr) {
      for (size_t d = 0; d < plan_.delegates()->size(); ++d) PTEFORGE_RETURN_IF_ERROR(CheckDelegate(d));
    }
    // Instructions last: they refer to the values, operators and delegates checked above.
    if (plan_.chains() != nullptr) {
      for (size_t c = 0; c < plan_.chains()->size(); ++c) PTEFORGE_RETURN_IF_ERROR(CheckChain(c));
    }
    return CheckPrimOpConstants(plan_, where_);
  }

 private:
  Status Bad(const std::string& what) const {
    return Failure(Error::InvalidProgram, "the program is corrupted: %s: %s", where_.c_str(), what.c_str());
  }

  fb::KernelTypes TypeOf(int64_t index) const {
    const auto* value = plan_.values()->Get(static_cast<flatbuffers::uoffset_t>(index));
    return value == nullptr ? fb::KernelTypes::NONE : value->val_type();
  }

  Status CheckIndex(int64_t index, const char* what) const {
    if (index < 0 || static_cast<size_t>(index) >= values_) {
      return Bad(std::string(what) + " refers to value " + std::to_string(index) + " of " +
                 std::to_string(values_));
    }
    return Status();
  }

  Status CheckIndices(const flatbuffers::Vector<int32_t>* indices, const char* what) const {
    if (indices == nullptr) return Status();
    for (int32_t index : *indices) PTEFORGE_RETURN_IF_ERROR(CheckIndex(index, what));
    return Status();
  }

  Status CheckBufferSizes() {
    if (plan_.non_const_buffer_sizes() == nullptr) return Status();
    if (!Aligned(plan_.non_const_buffer_sizes())) return Bad("the planned buffer sizes are misaligned");
    for (int64_t size : *plan_.non_const_buffer_sizes()) {
      if (size < 0 || size > kMaxPlannedBufferBytes) {
        return Bad("a planned buffer of " + std::to_string(size) + " bytes");
      }
      buffer_sizes_.push_back(size);
    }
    return Status();
  }

  Status CheckTensor(const fb::Tensor& tensor, size_t index) const {
    std::string name = "tensor value " + std::to_string(index);
    size_t element = ElementBytes(tensor.scalar_type());
    if (element == 0) return Bad(name + " has an unknown dtype");
    if (tensor.sizes() == nullptr) return Bad(name + " has no sizes");
    size_t rank = tensor.sizes()->size();
    if (rank > 16) return Bad(name + " has rank " + std::to_string(rank));
    uint64_t bytes = element;
    for (int32_t size : *tensor.sizes()) {
      if (size < 0) return Bad(name + " has a negative size");
      if (size > 0 && bytes > static_cast<uint64_t>(kMaxPlannedBufferBytes) / size) {
        return Bad(name + " is too large");
      }
      bytes *= size;
    }
    if (tensor.dim_order() != nullptr) {
      if (tensor.dim_order()->size() != rank) return Bad(name + " has a dim order of the wrong length");
      std::vector<bool> seen(rank, false);
      for (uint8_t dim : *tensor.dim_order()) {
        if (dim >= rank || seen[dim]) return Bad(name + " has an invalid dim order");
        seen[dim] = true;
      }
    }
    if (const auto* allocation = tensor.allocation_info()) {
      uint32_t id = allocation->memory_id();
      uint64_t offset = (static_cast<uint64_t>(allocation->memory_offset_high()) << 32) |
                        allocation->memory_offset_low();
      if (id == 0 || id >= buffer_sizes_.size()) {
        return Bad(name + " is planned in memory id " + std::to_string(id) + ", which the plan does not have");
      }
      if (offset > static_cast<uint64_t>(buffer_sizes_[id]) || bytes > buffer_sizes_[id] - offset) {
        return Bad(name + " lies outside planned memory id " + std::to_string(id));
      }
    } else if (tensor.data_buffer_idx() == 0) {
      // No planned memory and no constant data: only a method input may be like that
      // (its data comes with the call). Kernels would dereference a null pointer.
      bool input = std::find(inputs_.begin(), inputs_.end(), static_cast<int32_t>(index)) != inputs_.end();
      if (bytes > 0 && !input) return Bad(name + " has neither planned memory nor constant data");
    } else if (tensor.extra_tensor_info() == nullptr) {
      // Constant data: inline buffers, or offsets into the constant segment.
      size_t count = program_.constant_buffer() != nullptr ? program_.constant_buffer()->size() : 0;
      if (const auto* segment = program_.constant_segment()) {
        if (segment->offsets() != nullptr) count = std::max<size_t>(count, segment->offsets()->size());
      }
      if (tensor.data_buffer_idx() >= count) return Bad(name + " refers to missing constant data");
      const auto* buffers = program_.constant_buffer();
      if (buffers != nullptr && tensor.data_buffer_idx() < buffers->size()) {
        const auto* buffer = buffers->Get(tensor.data_buffer_idx());
        if (buffer != nullptr && buffer->storage() != nullptr && buffer->storage()->size() > 0 &&
            buffer->storage()->size() < bytes) {
          return Bad(name + " has less constant data than its shape needs");
        }
      }
    }
    return Status();
  }

  Status CheckListItems(const flatbuffers::Vector<int32_t>* items, size_t index, bool optional) const {
    if (items == nullptr) return Status();
    for (int32_t item : *items) {
      if (optional && item == -1) continue;
      PTEFORGE_RETURN_IF_ERROR(CheckIndex(item, "a tensor list"));
      fb::KernelTypes type = TypeOf(item);
      if (type != fb::KernelTypes::Tensor && !(optional && type == fb::KernelTypes::Null)) {
        return Bad("tensor list value " + std::to_string(index) + " holds a non-tensor");
      }
    }
    return Status();
  }

  Status CheckValue(size_t index) const {
    const auto* value = plan_.values()->Get(static_cast<flatbuffers::uoffset_t>(index));
    if (value == nullptr) return Bad("value " + std::to_string(index) + " is missing");
    switch (value->val_type()) {
      case fb::KernelTypes::Null:
      case fb::KernelTypes::Int:
      case fb::KernelTypes::Bool:
      case fb::KernelTypes::Double:
      case fb::KernelTypes::DoubleList:
        if (value->val_as_DoubleList() && !Aligned(value->val_as_DoubleList()->items())) {
          return Bad("double list value " + std::to_string(index) + " is misaligned");
        }
        [[fallthrough]];
      case fb::KernelTypes::BoolList:
        return value->val() != nullptr || value->val_type() == fb::KernelTypes::Null
                   ? Status() : Bad("value " + std::to_string(index) + " is empty");
      case fb::KernelTypes::String:
        return value->val_as_String() && value->val_as_String()->string_val()
                   ? Status() : Bad("string value " + std::to_string(index) + " is empty");
      case fb::KernelTypes::Tensor:
        if (value->val_as_Tensor() == nullptr) return Bad("tensor value " + std::to_string(index) + " is empty");
        return CheckTensor(*value->val_as_Tensor(), index);
      case fb::KernelTypes::IntList: {
        // The items are indices of Int values.
        const auto* list = value->val_as_IntList();
        if (list == nullptr) return Bad("int list value " + std::to_string(index) + " is empty");
        if (list->items() == nullptr) return Status();
        if (!Aligned(list->items())) return Bad("int list value " + std::to_string(index) + " is misaligned");
        for (int64_t item : *list->items()) {
          PTEFORGE_RETURN_IF_ERROR(CheckIndex(item, "an int list"));
          if (TypeOf(item) != fb::KernelTypes::Int) {
            return Bad("int list value " + std::to_string(index) + " holds a non-int");
          }
        }
        return Status();
      }
      case fb::KernelTypes::TensorList:
        if (value->val_as_TensorList() == nullptr) return Bad("empty tensor list");
        return CheckListItems(value->val_as_TensorList()->items(), index, false);
      case fb::KernelTypes::OptionalTensorList:
        if (value->val_as_OptionalTensorList() == nullptr) return Bad("empty tensor list");
        return CheckListItems(value->val_as_OptionalTensorList()->items(), index, true);
      default:
        return Bad("value " + std::to_string(index) + " has an unknown kind");
    }
  }

  Status CheckChain(size_t c) const {
    const auto* chain = plan_.chains()->Get(static_cast<flatbuffers::uoffset_t>(c));
    if (chain == nullptr) return Bad("chain " + std::to_string(c) + " is missing");
    PTEFORGE_RETURN_IF_ERROR(CheckIndices(chain->inputs(), "a chain input"));
    PTEFORGE_RETURN_IF_ERROR(CheckIndices(chain->outputs(), "a chain output"));
    if (chain->instructions() == nullptr) return Status();
    size_t count = chain->instructions()->size();
    size_t operators = plan_.operators() ? plan_.operators()->size() : 0;
    size_t delegates = plan_.delegates() ? plan_.delegates()->size() : 0;
    for (size_t i = 0; i < count; ++i) {
      const auto* instruction = chain->instructions()->Get(static_cast<flatbuffers::uoffset_t>(i));
      std::string name = "instruction " + std::to_string(i);
      if (instruction == nullptr || instruction->instr_args() == nullptr) return Bad(name + " is empty");
      switch (instruction->instr_args_type()) {
        case fb::InstructionArguments::KernelCall: {
          const auto* call = instruction->instr_args_as_KernelCall();
          if (call->op_index() < 0 || static_cast<size_t>(call->op_index()) >= operators) {
            return Bad(name + " calls a missing operator");
          }
          if (call->args() == nullptr) return Bad(name + " has no arguments");
          PTEFORGE_RETURN_IF_ERROR(CheckIndices(call->args(), "a kernel argument"));
          const std::string problem = KernelCallCheck(plan_, inputs_).Problem(name, *call);
          if (!problem.empty()) return Bad(problem);
          break;
        }
        case fb::InstructionArguments::DelegateCall: {
          const auto* call = instruction->instr_args_as_DelegateCall();
          if (call->delegate_index() < 0 || static_cast<size_t>(call->delegate_index()) >= delegates) {
            return Bad(name + " calls a missing delegate");
          }
          if (call->args() == nullptr) return Bad(name + " has no arguments");
          PTEFORGE_RETURN_IF_ERROR(CheckIndices(call->args(), "a delegate argument"));
          const size_t takes = delegate_arguments_[static_cast<size_t>(call->delegate_index())];
          if (takes != SIZE_MAX && call->args()->size() < takes) {
            return Bad(name + " gives its delegate fewer arguments than its graph takes");
          }
          break;
        }
        case fb::InstructionArguments::MoveCall: {
          const auto* call = instruction->instr_args_as_MoveCall();
          PTEFORGE_RETURN_IF_ERROR(CheckIndex(call->move_from(), "a move"));
          PTEFORGE_RETURN_IF_ERROR(CheckIndex(call->move_to(), "a move"));
          // A move replaces a value at run time: of another kind, it would reach kernels
          // that were checked against the old one.
          if (TypeOf(call->move_from()) != TypeOf(call->move_to())) return Bad(name + " moves a value of another kind");
          break;
        }
        case fb::InstructionArguments::JumpFalseCall: {
          const auto* call = instruction->instr_args_as_JumpFalseCall();
          PTEFORGE_RETURN_IF_ERROR(CheckIndex(call->cond_value_index(), "a jump condition"));
          if (TypeOf(call->cond_value_index()) != fb::KernelTypes::Bool &&
              TypeOf(call->cond_value_index()) != fb::KernelTypes::Tensor) {
            return Bad(name + " jumps on a value that is neither a bool nor a tensor");
          }
          if (call->destination_instruction() < 0 || static_cast<size_t>(call->destination_instruction()) > count) {
            return Bad(name + " jumps outside its chain");
          }
          break;
        }
        case fb::InstructionArguments::FreeCall: {
          const auto* call = instruction->instr_args_as_FreeCall();
          PTEFORGE_RETURN_IF_ERROR(CheckIndex(call->value_index(), "a free"));
          if (TypeOf(call->value_index()) != fb::KernelTypes::Tensor) return Bad(name + " frees a non-tensor");
          // Freeing leaves the tensor's data null for the instructions after it (found by
          // the Session fuzzer: copy_ from a freed tensor). Programs with planned memory,
          // which are all a Session runs, have nothing to free.
          return Bad(name + " frees value " + std::to_string(call->value_index()) +
                     ": programs with planned memory never free");
        }
        default:
          return Bad(name + " has an unknown kind");
      }
    }
    return Status();
  }

  Status CheckDelegate(size_t d) {
    const auto* delegate = plan_.delegates()->Get(static_cast<flatbuffers::uoffset_t>(d));
    if (delegate == nullptr || delegate->id() == nullptr || delegate->processed() == nullptr) {
      return Bad("delegate " + std::to_string(d) + " is incomplete");
    }
    const auto* processed = delegate->processed();
    size_t count = processed->location() == fb::DataLocation::INLINE
                       ? (program_.backend_delegate_data() ? program_.backend_delegate_data()->size() : 0)
                       : (program_.segments() ? program_.segments()->size() : 0);
    if (processed->index() >= count) return Bad("delegate " + std::to_string(d) + " refers to missing data");
    DelegateShape shape;
    PTEFORGE_RETURN_IF_ERROR(CheckDelegatePayload(program_, *delegate, data_, size_,
                                                  "the program is corrupted: " + where_ + ", delegate " +
                                                      std::to_string(d) + " (" + delegate->id()->str() + ")",
                                                  &shape));
    delegate_arguments_.push_back(shape.arguments);
    return Status();
  }

  const fb::Program& program_;
  const fb::ExecutionPlan& plan_;
  const uint8_t* data_;
  size_t size_;
  std::string where_;
  std::vector<size_t> delegate_arguments_;  // per delegate: the arguments its graph takes
  size_t values_;
  std::vector<int64_t> buffer_sizes_;
  std::vector<int32_t> inputs_;
};

}  // namespace

Status CheckProgram(const uint8_t* data, size_t size) {
  flatbuffers::Verifier verifier(data, size);
  if (!fb::VerifyProgramBuffer(verifier)) {
    return Failure(Error::InvalidProgram, "the program's structure is invalid (flatbuffer verification failed)");
  }
  const fb::Program* program = fb::GetProgram(data);
  if (program->execution_plan() == nullptr || program->execution_plan()->size() == 0) {
    return Failure(Error::InvalidProgram, "the program has no methods");
  }
  bool aligned = !program->constant_segment() || Aligned(program->constant_segment()->offsets());
  if (program->mutable_data_segments() != nullptr) {
    for (const auto* offsets : *program->mutable_data_segments()) aligned &= !offsets || Aligned(offsets->offsets());
  }
  if (!aligned) return Failure(Error::InvalidProgram, "the program is corrupted: its segment offsets are misaligned");
  for (size_t i = 0; i < program->execution_plan()->size(); ++i) {
    const auto* plan = program->execution_plan()->Get(static_cast<flatbuffers::uoffset_t>(i));
    if (plan == nullptr || plan->name() == nullptr) {
      return Failure(Error::InvalidProgram, "the program is corrupted: method %zu has no name", i);
    }
    // The runtime finds a method by its name as a C string, the first match winning:
    // a name with a NUL inside, or shared, would make calls use another method's layout.
    if (std::strlen(plan->name()->c_str()) != plan->name()->size()) {
      return Failure(Error::InvalidProgram, "the program is corrupted: method %zu's name has a NUL inside", i);
    }
    for (size_t j = 0; j < i; ++j) {
      if (program->execution_plan()->Get(static_cast<flatbuffers::uoffset_t>(j))->name()->str() == plan->name()->str()) {
        return Failure(Error::InvalidProgram, "the program is corrupted: two methods are named '%s'", plan->name()->c_str());
      }
    }
    PTEFORGE_RETURN_IF_ERROR(PlanChecker(*program, *plan, data, size, "method '" + plan->name()->str() + "'").Check());
  }
  return Status();
}

}  // namespace pteforge
