#include "cc/runtime/value.h"

#include <algorithm>

namespace pteforge {
namespace {

struct DTypeEntry {
  ScalarType dtype;
  const char* name;
  size_t size;
};

constexpr DTypeEntry kDTypes[] = {
    {ScalarType::Float, "float32", 4}, {ScalarType::Double, "float64", 8},
    {ScalarType::Half, "float16", 2},  {ScalarType::BFloat16, "bfloat16", 2},
    {ScalarType::Long, "int64", 8},    {ScalarType::Int, "int32", 4},
    {ScalarType::Short, "int16", 2},   {ScalarType::Char, "int8", 1},
    {ScalarType::Byte, "uint8", 1},    {ScalarType::Bool, "bool", 1},
};

const DTypeEntry* Find(ScalarType dtype) {
  for (const auto& entry : kDTypes) {
    if (entry.dtype == dtype) return &entry;
  }
  return nullptr;
}

}  // namespace

size_t ElementSize(ScalarType dtype) {
  const DTypeEntry* entry = Find(dtype);
  return entry ? entry->size : 0;
}

const char* DTypeName(ScalarType dtype) {
  const DTypeEntry* entry = Find(dtype);
  return entry ? entry->name : "unsupported-dtype";
}

bool ParseDType(const std::string& name, ScalarType* dtype) {
  for (const auto& entry : kDTypes) {
    if (name == entry.name) {
      *dtype = entry.dtype;
      return true;
    }
  }
  return false;
}

HostTensor HostTensor::Zeros(ScalarType dtype, std::vector<int64_t> sizes) {
  HostTensor tensor;
  tensor.dtype = dtype;
  tensor.sizes = std::move(sizes);
  tensor.bytes.assign(static_cast<size_t>(tensor.numel()) * ElementSize(dtype), 0);
  return tensor;
}

int64_t HostTensor::numel() const {
  int64_t count = 1;
  for (int64_t size : sizes) count *= size;
  return count;
}

double HostTensor::Get(int64_t index) const {
  switch (dtype) {
    case ScalarType::Float: return data<float>()[index];
    case ScalarType::Double: return data<double>()[index];
    case ScalarType::Long: return static_cast<double>(data<int64_t>()[index]);
    case ScalarType::Int: return data<int32_t>()[index];
    case ScalarType::Short: return data<int16_t>()[index];
    case ScalarType::Char: return data<int8_t>()[index];
    case ScalarType::Byte: return data<uint8_t>()[index];
    case ScalarType::Bool: return data<bool>()[index] ? 1.0 : 0.0;
    case ScalarType::Half: return static_cast<float>(data<executorch::aten::Half>()[index]);
    case ScalarType::BFloat16: return static_cast<float>(data<executorch::aten::BFloat16>()[index]);
    default: return 0.0;
  }
}

void HostTensor::Set(int64_t index, double x) {
  switch (dtype) {
    case ScalarType::Float: mutable_data<float>()[index] = static_cast<float>(x); break;
    case ScalarType::Double: mutable_data<double>()[index] = x; break;
    case ScalarType::Long: mutable_data<int64_t>()[index] = static_cast<int64_t>(x); break;
    case ScalarType::Int: mutable_data<int32_t>()[index] = static_cast<int32_t>(x); break;
    case ScalarType::Short: mutable_data<int16_t>()[index] = static_cast<int16_t>(x); break;
    case ScalarType::Char: mutable_data<int8_t>()[index] = static_cast<int8_t>(x); break;
    case ScalarType::Byte: mutable_data<uint8_t>()[index] = static_cast<uint8_t>(x); break;
    case ScalarType::Bool: mutable_data<bool>()[index] = x != 0; break;
    case ScalarType::Half: mutable_data<executorch::aten::Half>()[index] = executorch::aten::Half(static_cast<float>(x)); break;
    case ScalarType::BFloat16:
      mutable_data<executorch::aten::BFloat16>()[index] = executorch::aten::BFloat16(static_cast<float>(x));
      break;
    default: break;
  }
}

std::string DescribeValue(const Value& value) {
  if (const auto* tensor = std::get_if<HostTensor>(&value)) {
    std::string text = std::string(DTypeName(tensor->dtype)) + "[";
    for (size_t i = 0; i < tensor->sizes.size(); ++i) {
      if (i) text += ", ";
      text += std::to_string(tensor->sizes[i]);
    }
    return text + "]";
  }
  if (std::holds_alternative<int64_t>(value)) return "int";
  if (std::holds_alternative<double>(value)) return "float";
  if (std::holds_alternative<bool>(value)) return "bool";
  if (std::holds_alternative<std::string>(value)) return "string";
  return "none";
}

}  // namespace pteforge
