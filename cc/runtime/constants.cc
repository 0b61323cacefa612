#include "cc/runtime/constants.h"

namespace pteforge {
namespace {

StatusOr<Value> Constant(Session& session, const char* name, const char* kind) {
  auto values = session.Execute(name, {});
  if (!values.ok()) {
    return Failure(Error::InvalidProgram, "the program is not %s: constant '%s': %s", kind, name,
                   values.status().message().c_str());
  }
  if (values->size() != 1) return Failure(Error::InvalidProgram, "constant '%s' is not one value", name);
  return values->at(0);
}

Status WrongType(const char* name, const Value& value) {
  return Failure(Error::InvalidProgram, "constant '%s' has an unexpected type (%s)", name,
                 DescribeValue(value).c_str());
}

// The constant's value if it holds a T.
template <typename T>
Status ReadAs(Session& session, const char* name, const char* kind, T* out) {
  auto value = Constant(session, name, kind);
  if (!value.ok()) return value.status();
  if (const T* held = std::get_if<T>(&value.value())) {
    *out = *held;
    return Status();
  }
  return WrongType(name, value.value());
}

}  // namespace

Status ReadConstant(Session& session, const char* name, const char* kind, std::string* out) {
  auto value = Constant(session, name, kind);
  if (!value.ok()) return value.status();
  if (const auto* text = std::get_if<std::string>(&value.value())) {
    *out = *text;
    return Status();
  }
  const auto* bytes = std::get_if<HostTensor>(&value.value());  // bytes: a uint8 tensor
  if (bytes == nullptr || bytes->dtype != ScalarType::Byte) return WrongType(name, value.value());
  out->assign(bytes->bytes.begin(), bytes->bytes.end());
  return Status();
}

Status ReadConstant(Session& session, const char* name, const char* kind, int64_t* out) {
  return ReadAs(session, name, kind, out);
}

Status ReadConstant(Session& session, const char* name, const char* kind, double* out) {
  return ReadAs(session, name, kind, out);
}

Status ReadConstant(Session& session, const char* name, const char* kind, bool* out) {
  return ReadAs(session, name, kind, out);
}

Status ReadConstant(Session& session, const char* name, const char* kind, std::vector<int64_t>* out) {
  auto value = Constant(session, name, kind);
  if (!value.ok()) return value.status();
  const auto* tensor = std::get_if<HostTensor>(&value.value());
  if (tensor == nullptr || tensor->dtype != ScalarType::Long || tensor->sizes.size() != 1) {
    return WrongType(name, value.value());
  }
  out->assign(tensor->data<int64_t>(), tensor->data<int64_t>() + tensor->numel());
  return Status();
}

}  // namespace pteforge
