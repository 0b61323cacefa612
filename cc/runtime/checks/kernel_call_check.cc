// The checks of one kernel call's arguments (kernel_call_check.h).
#include "cc/runtime/checks/kernel_call_check.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

namespace pteforge {
namespace {

namespace fb = executorch_flatbuffer;

struct OpSchema {
  const char* name;   // "aten::addmm.out"
  const char* kinds;  // per argument, then per return, '|'-separated (see gen_op_schemas.py)
};

// A constant table in read-only data: built at run time from nested initializer
// lists it was a 10 KB stack frame, most of a 16 KB microcontroller stack.
constexpr OpSchema kOpSchemas[] = {
#include "cc/runtime/checks/op_schemas.inc"
};

const OpSchema* FindSchema(const std::string& name) {
  for (const auto& schema : kOpSchemas) {
    if (name == schema.name) return &schema;
  }
  return nullptr;
}

std::vector<std::string> Kinds(const OpSchema& schema) {
  std::vector<std::string> kinds;
  const char* start = schema.kinds;
  for (const char* c = start;; ++c) {
    if (*c == '|' || *c == '\0') {
      kinds.emplace_back(start, c);
      if (*c == '\0') break;
      start = c + 1;
    }
  }
  return kinds;
}

char KindLetter(fb::KernelTypes type) {
  switch (type) {
    case fb::KernelTypes::Tensor: return 'T';
    case fb::KernelTypes::Null: return 'N';
    case fb::KernelTypes::Int: return 'I';
    case fb::KernelTypes::Double: return 'D';
    case fb::KernelTypes::Bool: return 'B';
    case fb::KernelTypes::String: return 'S';
    case fb::KernelTypes::IntList: return 'l';
    case fb::KernelTypes::DoubleList: return 'f';
    case fb::KernelTypes::BoolList: return 'b';
    case fb::KernelTypes::TensorList: return 't';
    case fb::KernelTypes::OptionalTensorList: return 'o';
    default: return '?';
  }
}

}  // namespace

size_t ElementBytes(executorch_flatbuffer::ScalarType type) {
  switch (type) {
    case fb::ScalarType::BYTE:
    case fb::ScalarType::CHAR:
    case fb::ScalarType::BOOL:
    case fb::ScalarType::QINT8:
    case fb::ScalarType::QUINT8:
    case fb::ScalarType::QUINT4X2:
    case fb::ScalarType::QUINT2X4:
    case fb::ScalarType::FLOAT8E5M2:
    case fb::ScalarType::FLOAT8E4M3FN:
    case fb::ScalarType::FLOAT8E5M2FNUZ:
    case fb::ScalarType::FLOAT8E4M3FNUZ:
      return 1;
    case fb::ScalarType::SHORT:
    case fb::ScalarType::HALF:
    case fb::ScalarType::BFLOAT16:
    case fb::ScalarType::BITS16:
    case fb::ScalarType::UINT16:
      return 2;
    case fb::ScalarType::INT:
    case fb::ScalarType::FLOAT:
    case fb::ScalarType::QINT32:
    case fb::ScalarType::UINT32:
      return 4;
    case fb::ScalarType::LONG:
    case fb::ScalarType::DOUBLE:
    case fb::ScalarType::UINT64:
      return 8;
    default:
      return 0;
  }
}

uint64_t TensorBytes(const executorch_flatbuffer::Tensor& tensor) {
  uint64_t bytes = ElementBytes(tensor.scalar_type());
  for (int32_t size : *tensor.sizes()) bytes *= static_cast<uint64_t>(size);
  return bytes;
}

KernelCallCheck::KernelCallCheck(const fb::ExecutionPlan& plan, const std::vector<int32_t>& inputs)
    : plan_(plan), inputs_(inputs), values_(plan.values() ? plan.values()->size() : 0) {}

// The kernels unbox their arguments with checks that abort on a wrong kind.
std::string KernelCallCheck::Problem(const std::string& where, const fb::KernelCall& call) const {
  const auto* op = plan_.operators()->Get(static_cast<flatbuffers::uoffset_t>(call.op_index()));
  // As the runtime reads them, C strings: a name with a NUL inside resolves to the
  // kernel named by its first part (found by the Session fuzzer).
  std::string name = op->name()->c_str();
  if (op->overload() != nullptr && op->overload()->c_str()[0] != '\0') name += std::string(".") + op->overload()->c_str();
  const OpSchema* schema = FindSchema(name);
  if (schema == nullptr) return "";  // unknown here: resolution fails cleanly at load
  const std::vector<std::string> kinds = Kinds(*schema);
  if (call.args()->size() != kinds.size()) {
    return (where + " passes " + std::to_string(call.args()->size()) + " arguments to " + name +
               ", which takes " + std::to_string(kinds.size()));
  }
  for (size_t a = 0; a < kinds.size(); ++a) {
    const std::string& allowed = kinds[a];
    const int32_t argument = call.args()->Get(static_cast<flatbuffers::uoffset_t>(a));
    char kind = KindLetter(plan_.values()->Get(static_cast<flatbuffers::uoffset_t>(argument))->val_type());
    if (allowed != "*" && allowed.find(kind) == std::string::npos) {
      return (where + " passes a value of the wrong kind as argument " + std::to_string(a) + " of " + name);
    }
    if (allowed.find('!') != std::string::npos && IsConstant(argument)) {
      return (where + " has " + name + " write into a constant (argument " + std::to_string(a) + ")");
    }
    if (HasNoData(argument)) {
      return (where + " passes " + name + " a tensor with no memory (argument " + std::to_string(a) + ")");
    }
  }
  return PartialOverlap(where, name, call);
}

// Two tensors one kernel call gets, planned in the same buffer, either start at the
// same byte (the same tensor, or an in-place write) or do not meet: kernels copy
// between their arguments with memcpy, undefined for overlapping ranges (found by the
// Session fuzzer: index_put copying `self` into an `out` planned across it).
std::string KernelCallCheck::PartialOverlap(const std::string& where, const std::string& name,
                                          const fb::KernelCall& call) const {
  struct Range {
    uint32_t id;
    uint64_t begin, end;
  };
  std::vector<Range> ranges;
  auto add = [&](int32_t index) {
    if (index < 0 || static_cast<size_t>(index) >= values_) return;
    const auto* tensor = plan_.values()->Get(static_cast<flatbuffers::uoffset_t>(index))->val_as_Tensor();
    if (tensor == nullptr || tensor->allocation_info() == nullptr) return;
    const auto* allocation = tensor->allocation_info();
    uint64_t begin = (static_cast<uint64_t>(allocation->memory_offset_high()) << 32) | allocation->memory_offset_low();
    ranges.push_back({allocation->memory_id(), begin, begin + TensorBytes(*tensor)});
  };
  for (int32_t argument : *call.args()) {
    add(argument);
    const auto* list = plan_.values()->Get(static_cast<flatbuffers::uoffset_t>(argument))->val_as_TensorList();
    if (list != nullptr && list->items() != nullptr) {
      for (int32_t item : *list->items()) add(item);
    }
  }
  for (size_t i = 0; i < ranges.size(); ++i) {
    for (size_t j = i + 1; j < ranges.size(); ++j) {
      const Range& a = ranges[i];
      const Range& b = ranges[j];
      if (a.id == b.id && a.begin != b.begin && a.begin < b.end && b.begin < a.end) {
        return (where + " passes " + name + " tensors that partly overlap in planned memory id " +
                   std::to_string(a.id));
      }
    }
  }
  return "";
}

// A tensor whose data is the program's own bytes (or a list holding one): writing it
// would change the program under the runtime (found by the Session fuzzer: the
// flatbuffer overwritten, then read out of bounds).
// A tensor with elements but neither planned memory nor constant data, and not an
// input (whose data the caller gives): its data pointer stays null, and a kernel
// reading or writing it crashes.
bool KernelCallCheck::HasNoData(int32_t index) const {
  const auto* tensor = plan_.values()->Get(static_cast<flatbuffers::uoffset_t>(index))->val_as_Tensor();
  if (tensor == nullptr || tensor->allocation_info() != nullptr || tensor->data_buffer_idx() != 0) return false;
  if (std::find(inputs_.begin(), inputs_.end(), index) != inputs_.end()) return false;
  for (int32_t size : *tensor->sizes()) {
    if (size == 0) return false;
  }
  return true;
}

bool KernelCallCheck::IsConstant(int32_t index) const {
  auto constant_tensor = [&](int32_t i) {
    const auto* tensor = plan_.values()->Get(static_cast<flatbuffers::uoffset_t>(i))->val_as_Tensor();
    return tensor != nullptr && tensor->data_buffer_idx() != 0 && tensor->allocation_info() == nullptr;
  };
  if (constant_tensor(index)) return true;
  const auto* list = plan_.values()->Get(static_cast<flatbuffers::uoffset_t>(index))->val_as_TensorList();
  if (list == nullptr || list->items() == nullptr) return false;
  for (int32_t item : *list->items()) {
    if (item >= 0 && static_cast<size_t>(item) < values_ && constant_tensor(item)) return true;
  }
  return false;
}

}  // namespace pteforge
