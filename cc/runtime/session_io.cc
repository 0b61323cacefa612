// The Session's calls: inputs checked against a method's signature and copied in,
// outputs copied out, written inputs copied back into the caller's tensors.
#include "cc/runtime/session.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <numeric>

#include "cc/runtime/session_internal.h"

namespace pteforge {
namespace {

using executorch::runtime::EValue;
using executorch::runtime::MethodMeta;
using executorch::runtime::TensorShapeDynamism;
using internal::LoadedMethod;
using internal::Method;
using internal::ShapeText;
using internal::Tag;
using internal::TagName;

// A contiguous row-major tensor over a HostTensor's bytes, without copying them.
class TensorView {
 public:
  explicit TensorView(const HostTensor& host)
      : sizes_(host.sizes.begin(), host.sizes.end()), dim_order_(sizes_.size()), strides_(sizes_.size()) {
    std::iota(dim_order_.begin(), dim_order_.end(), 0);
    executorch::aten::StridesType stride = 1;
    for (size_t d = sizes_.size(); d-- > 0;) {
      strides_[d] = stride;
      stride *= sizes_[d];
    }
    impl_ = std::make_unique<executorch::aten::TensorImpl>(
        host.dtype, static_cast<ssize_t>(sizes_.size()), sizes_.data(), const_cast<uint8_t*>(host.bytes.data()),
        dim_order_.data(), strides_.data(), TensorShapeDynamism::STATIC);
  }
  executorch::aten::Tensor tensor() { return executorch::aten::Tensor(impl_.get()); }

 private:
  std::vector<executorch::aten::SizesType> sizes_;
  std::vector<executorch::aten::DimOrderType> dim_order_;
  std::vector<executorch::aten::StridesType> strides_;
  std::unique_ptr<executorch::aten::TensorImpl> impl_;
};

// Checks one input against its spec; the message names the method and input.
Status CheckInput(const std::string& method, size_t index, const ValueSpec& spec, const Value& value) {
  auto fail = [&](const std::string& what) {
    return Failure(Error::InvalidArgument, "method '%s', input %zu: %s", method.c_str(), index, what.c_str());
  };
  switch (spec.tag) {
    case Tag::Tensor: {
      const auto* tensor = std::get_if<HostTensor>(&value);
      if (tensor == nullptr) return fail("expected a tensor, got " + DescribeValue(value));
      if (tensor->dtype != spec.dtype) {
        return fail(std::string("expected dtype ") + DTypeName(spec.dtype) + ", got " + DTypeName(tensor->dtype));
      }
      if (tensor->sizes.size() != spec.max_sizes.size()) {
        return fail("expected rank " + std::to_string(spec.max_sizes.size()) + " " + ShapeText(spec.max_sizes) +
                    ", got rank " + std::to_string(tensor->sizes.size()) + " " + ShapeText(tensor->sizes));
      }
      for (size_t d = 0; d < spec.max_sizes.size(); ++d) {
        int64_t size = tensor->sizes[d];
        std::string where = "dimension " + std::to_string(d) + " is " + std::to_string(size) + ", ";
        std::string shape = " (shape " + ShapeText(tensor->sizes) + ")";
        if (!spec.dynamic[d] && size != spec.max_sizes[d]) {
          return fail(where + "but must be " + std::to_string(spec.max_sizes[d]) + shape);
        }
        if (size > spec.max_sizes[d]) {
          return fail(where + "beyond its dynamic bound " + std::to_string(spec.max_sizes[d]) + shape);
        }
        if (size < spec.min_sizes[d]) {
          return fail(where + "below its dynamic minimum " + std::to_string(spec.min_sizes[d]) + shape);
        }
      }
      if (tensor->bytes.size() != static_cast<size_t>(tensor->numel()) * ElementSize(tensor->dtype)) {
        return fail("the tensor holds " + std::to_string(tensor->bytes.size()) + " bytes, not the " +
                    std::to_string(tensor->numel() * ElementSize(tensor->dtype)) + " its shape needs");
      }
      return Status();
    }
    case Tag::Int:
      return std::holds_alternative<int64_t>(value) ? Status() : fail("expected an int, got " + DescribeValue(value));
    case Tag::Double:
      return std::holds_alternative<double>(value) ? Status() : fail("expected a float, got " + DescribeValue(value));
    case Tag::Bool:
      return std::holds_alternative<bool>(value) ? Status() : fail("expected a bool, got " + DescribeValue(value));
    default:
      return fail(std::string("inputs of kind ") + TagName(spec.tag) + " are not supported");
  }
}

StatusOr<Value> CopyOut(const std::string& method, size_t index, const EValue& value) {
  if (value.isTensor()) {
    const auto& tensor = value.toTensor();
    if (ElementSize(tensor.scalar_type()) == 0) {
      return Failure(Error::NotSupported, "method '%s', output %zu: dtype %d is not supported", method.c_str(),
                     index, static_cast<int>(tensor.scalar_type()));
    }
    HostTensor copy;
    copy.dtype = tensor.scalar_type();
    copy.sizes.assign(tensor.sizes().begin(), tensor.sizes().end());
    if (static_cast<size_t>(copy.numel()) * ElementSize(copy.dtype) != tensor.nbytes()) {
      return Failure(Error::Internal, "method '%s', output %zu: unexpected size", method.c_str(), index);
    }
    // Copied once, not zeroed first (a decode step's logits are 192 KB).
    const auto* data = static_cast<const uint8_t*>(tensor.const_data_ptr());
    if (tensor.nbytes() > 0) copy.bytes.assign(data, data + tensor.nbytes());
    return Value(std::move(copy));
  }
  if (value.isInt()) return Value(value.toInt());
  if (value.isDouble()) return Value(value.toDouble());
  if (value.isBool()) return Value(value.toBool());
  if (value.isString()) return Value(std::string(value.toString()));
  if (value.isNone()) return Value();
  return Failure(Error::NotSupported, "method '%s', output %zu: unsupported output kind %s", method.c_str(), index,
                 TagName(value.tag));
}

// Copies a written input's final value (output `index` of `method`) into the caller's
// tensor, which must keep its dtype and sizes (an in-place write never changes them).
Status WriteBack(const std::string& method, size_t input, const EValue& value, HostTensor* tensor) {
  if (!value.isTensor()) {
    return Failure(Error::InvalidProgram, "method '%s': the value written into input %zu is not a tensor",
                   method.c_str(), input);
  }
  const auto& written = value.toTensor();
  if (written.scalar_type() != tensor->dtype || written.nbytes() != tensor->bytes.size() ||
      !std::equal(written.sizes().begin(), written.sizes().end(), tensor->sizes.begin(), tensor->sizes.end())) {
    return Failure(Error::InvalidProgram, "method '%s': the value written into input %zu is not %s", method.c_str(),
                   input, DescribeValue(Value(*tensor)).c_str());
  }
  if (!tensor->bytes.empty()) std::memcpy(tensor->bytes.data(), written.const_data_ptr(), tensor->bytes.size());
  return Status();
}

}  // namespace

StatusOr<MethodSignature> Session::Signature(const std::string& method) const {
  LoadedMethod* loaded = impl_->Find(method);
  if (loaded == nullptr) {
    return Failure(Error::InvalidArgument, "no method '%s' in the program", method.c_str());
  }
  const MethodMeta meta = loaded->method->method_meta();
  MethodSignature signature;
  signature.name = method;
  signature.planned_work_bytes = loaded->work_bytes;
  signature.written_inputs = loaded->written_inputs;
  // The values of written inputs follow the method's own outputs (Load checked there
  // are more outputs than written inputs).
  const size_t own_outputs = meta.num_outputs() - loaded->written_inputs.size();
  for (size_t i = 0; i < meta.num_inputs() + own_outputs; ++i) {
    bool input = i < meta.num_inputs();
    size_t index = input ? i : i - meta.num_inputs();
    ValueSpec spec;
    spec.name = metadata_.Name(method, !input, index);
    auto tag = input ? meta.input_tag(index) : meta.output_tag(index);
    if (!tag.ok()) return Failure(tag.error(), "cannot read the signature of '%s'", method.c_str());
    spec.tag = tag.get();
    if (spec.tag == Tag::Tensor) {
      auto info = input ? meta.input_tensor_meta(index) : meta.output_tensor_meta(index);
      if (!info.ok()) return Failure(info.error(), "cannot read the signature of '%s'", method.c_str());
      spec.dtype = info->scalar_type();
      spec.max_sizes.assign(info->sizes().begin(), info->sizes().end());
      spec.min_sizes = spec.max_sizes;
      spec.dynamic.assign(spec.max_sizes.size(), false);
      const InputEntry* bounds = input ? metadata_.FindInput(method, index) : nullptr;
      if (bounds != nullptr && bounds->max_sizes == spec.max_sizes) {
        spec.min_sizes = bounds->min_sizes;
        for (size_t d = 0; d < spec.dynamic.size(); ++d) spec.dynamic[d] = bounds->min_sizes[d] != bounds->max_sizes[d];
      } else if (input) {
        // No exporter bounds: whether the tensor may resize is on the loaded input.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
        const EValue& current = loaded->method->get_input(index);
#pragma GCC diagnostic pop
        if (current.isTensor() && current.toTensor().shape_dynamism() != TensorShapeDynamism::STATIC) {
          spec.dynamic.assign(spec.max_sizes.size(), true);
          spec.min_sizes.assign(spec.max_sizes.size(), 0);
        }
      }
    }
    (input ? signature.inputs : signature.outputs).push_back(std::move(spec));
  }
  return signature;
}

StatusOr<std::vector<Value>> Session::Execute(const std::string& method, const std::vector<Value>& inputs) {
  std::lock_guard<PlatformMutex> lock(mutex_);
  LoadedMethod* loaded = impl_->Find(method);
  if (loaded != nullptr && !loaded->written_inputs.empty()) {
    return Failure(Error::InvalidArgument,
                   "method '%s' writes its input %zu in place (as the PyTorch method writes its caller's tensor); "
                   "call Session::ExecuteInPlace(method, &inputs) to receive the written values",
                   method.c_str(), loaded->written_inputs[0]);
  }
  return ExecuteLocked(method, inputs, nullptr);
}

StatusOr<std::vector<Value>> Session::ExecuteInPlace(const std::string& method, std::vector<Value>* inputs) {
  if (inputs == nullptr) return Failure(Error::InvalidArgument, "method '%s': the inputs are null", method.c_str());
  std::lock_guard<PlatformMutex> lock(mutex_);
  return ExecuteLocked(method, *inputs, inputs);
}

StatusOr<std::vector<Value>> Session::ExecuteLocked(const std::string& method, const std::vector<Value>& inputs,
                                                    std::vector<Value>* written_back) {
  LoadedMethod* loaded = impl_->Find(method);
  if (loaded == nullptr) {
    std::string known;
    for (const auto& name : methods_) known += (known.empty() ? "" : ", ") + name;
    return Failure(Error::InvalidArgument, "no method '%s' in the program (its methods: %s)", method.c_str(),
                   known.c_str());
  }
  if (loaded->method == nullptr) {  // at load, before the methods with a backend are loaded
    return Failure(Error::InvalidProgram, "method '%s' runs on a backend, which the program's state methods may not",
                   method.c_str());
  }
  auto signature = Signature(method);
  if (!signature.ok()) return signature.status();
  if (inputs.size() != signature->inputs.size()) {
    return Failure(Error::InvalidArgument, "method '%s' takes %zu inputs, got %zu", method.c_str(),
                   signature->inputs.size(), inputs.size());
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    PTEFORGE_RETURN_IF_ERROR(CheckInput(method, i, signature->inputs[i], inputs[i]));
  }
  Method& m = *loaded->method;
  for (size_t i = 0; i < inputs.size(); ++i) {
    Error error = Error::Ok;
    if (const auto* tensor = std::get_if<HostTensor>(&inputs[i])) {
      // A view of the caller's bytes: set_input copies them into planned memory.
      TensorView view(*tensor);
      error = m.set_input(EValue(view.tensor()), i);
    } else if (const auto* integer = std::get_if<int64_t>(&inputs[i])) {
      error = m.set_input(EValue(*integer), i);
    } else if (const auto* real = std::get_if<double>(&inputs[i])) {
      error = m.set_input(EValue(*real), i);
    } else if (const auto* flag = std::get_if<bool>(&inputs[i])) {
      error = m.set_input(EValue(*flag), i);
    }
    if (error != Error::Ok) {
      return Failure(error, "method '%s': the runtime rejected input %zu (%s)", method.c_str(), i,
                     DescribeValue(inputs[i]).c_str());
    }
  }
  Error error = m.execute();
  if (error != Error::Ok) return Failure(error, "method '%s' failed while running", method.c_str());
  const size_t own_outputs = m.outputs_size() - loaded->written_inputs.size();
  std::vector<Value> outputs;
  for (size_t i = 0; i < own_outputs; ++i) {
    auto value = CopyOut(method, i, m.get_output(i));
    if (!value.ok()) return value.status();
    outputs.push_back(std::move(value.value()));
  }
  for (size_t j = 0; j < loaded->written_inputs.size() && written_back != nullptr; ++j) {
    const size_t input = loaded->written_inputs[j];
    PTEFORGE_RETURN_IF_ERROR(
        WriteBack(method, input, m.get_output(own_outputs + j), &std::get<HostTensor>((*written_back)[input])));
  }
  return outputs;
}

}  // namespace pteforge
