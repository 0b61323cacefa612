#include "cc/cli/format.h"

#include <cstdio>

namespace pteforge {
namespace {

std::string Number(double x) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.6g", x);
  return text;
}

// Nested brackets by shape, stopping after `budget` elements.
void FormatElements(const HostTensor& tensor, size_t dim, int64_t offset, size_t* budget, std::string* out) {
  if (dim == tensor.sizes.size()) {
    *out += Number(tensor.Get(offset));
    return;
  }
  int64_t stride = 1;
  for (size_t d = dim + 1; d < tensor.sizes.size(); ++d) stride *= tensor.sizes[d];
  *out += "[";
  for (int64_t i = 0; i < tensor.sizes[dim]; ++i) {
    if (i) *out += ", ";
    if (*budget == 0) {
      *out += "...";
      break;
    }
    if (dim + 1 == tensor.sizes.size()) --*budget;
    FormatElements(tensor, dim + 1, offset + i * stride, budget, out);
  }
  *out += "]";
}

}  // namespace

std::string FormatValue(const Value& value, size_t max_elements) {
  if (const auto* tensor = std::get_if<HostTensor>(&value)) {
    std::string text = DescribeValue(value) + " = ";
    size_t budget = max_elements;
    FormatElements(*tensor, 0, 0, &budget, &text);
    return text;
  }
  if (const auto* integer = std::get_if<int64_t>(&value)) return "int = " + std::to_string(*integer);
  if (const auto* real = std::get_if<double>(&value)) return "float = " + Number(*real);
  if (const auto* flag = std::get_if<bool>(&value)) return std::string("bool = ") + (*flag ? "true" : "false");
  if (const auto* text = std::get_if<std::string>(&value)) {
    return "string = \"" + (text->size() > 60 ? text->substr(0, 60) + "..." : *text) + "\"";
  }
  return "none";
}

std::string FormatSpec(const ValueSpec& spec) {
  using executorch::runtime::Tag;
  switch (spec.tag) {
    case Tag::Tensor: {
      std::string text = std::string(DTypeName(spec.dtype)) + "[";
      for (size_t d = 0; d < spec.max_sizes.size(); ++d) {
        if (d) text += ", ";
        text += spec.dynamic[d] ? std::to_string(spec.min_sizes[d]) + ".." + std::to_string(spec.max_sizes[d])
                                : std::to_string(spec.max_sizes[d]);
      }
      return text + "]";
    }
    case Tag::Int: return "int";
    case Tag::Double: return "float";
    case Tag::Bool: return "bool";
    case Tag::String: return "string";
    default: return "none";
  }
}

std::string FormatBytes(size_t bytes) {
  char text[32];
  if (bytes < 1024) {
    std::snprintf(text, sizeof(text), "%zu B", bytes);
  } else if (bytes < 1024 * 1024) {
    std::snprintf(text, sizeof(text), "%.1f KB", bytes / 1024.0);
  } else {
    std::snprintf(text, sizeof(text), "%.1f MB", bytes / (1024.0 * 1024.0));
  }
  return text;
}

}  // namespace pteforge
