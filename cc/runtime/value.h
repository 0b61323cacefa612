// Values that cross the Session boundary: tensors that own their bytes, and scalars.
//
// The Session copies inputs into the program's memory and copies outputs out of it,
// so a Value never aliases runtime memory (in particular, never live state).
#ifndef PTEFORGE_CC_RUNTIME_VALUE_H_
#define PTEFORGE_CC_RUNTIME_VALUE_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <variant>
#include <vector>

#include <executorch/runtime/core/exec_aten/exec_aten.h>

namespace pteforge {

using executorch::aten::ScalarType;

// Bytes per element of `dtype`, or 0 for a type the Session does not handle.
size_t ElementSize(ScalarType dtype);
// "float32", "int64", ... (the names torch uses without "torch.").
const char* DTypeName(ScalarType dtype);
// The inverse of DTypeName; false if `name` is unknown.
bool ParseDType(const std::string& name, ScalarType* dtype);

// A dense, contiguous tensor owning its data.
struct HostTensor {
  ScalarType dtype = ScalarType::Float;
  std::vector<int64_t> sizes;
  std::vector<uint8_t> bytes;  // numel() * ElementSize(dtype)

  // A zero-filled tensor of the given shape.
  static HostTensor Zeros(ScalarType dtype, std::vector<int64_t> sizes);
  // A tensor holding a copy of `values`.
  template <typename T>
  static HostTensor FromValues(ScalarType dtype, std::vector<int64_t> sizes, const std::vector<T>& values) {
    HostTensor tensor = Zeros(dtype, std::move(sizes));
    std::memcpy(tensor.bytes.data(), values.data(), std::min(tensor.bytes.size(), values.size() * sizeof(T)));
    return tensor;
  }

  int64_t numel() const;
  template <typename T>
  const T* data() const { return reinterpret_cast<const T*>(bytes.data()); }
  template <typename T>
  T* mutable_data() { return reinterpret_cast<T*>(bytes.data()); }
  // Element `index` (flat) converted to double, for printing and comparing.
  double Get(int64_t index) const;
  // Stores `x` as element `index`, converted to the dtype (rounded to nearest for
  // float16/bfloat16, truncated for integers).
  void Set(int64_t index, double x);
};

// An input or output of a method.
using Value = std::variant<std::monostate, HostTensor, int64_t, double, bool, std::string>;

// "float32[4, 8]", "int64", "string", ... describing a value's type and shape.
std::string DescribeValue(const Value& value);

}  // namespace pteforge

#endif  // PTEFORGE_CC_RUNTIME_VALUE_H_
