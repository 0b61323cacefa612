#include "cc/text/json.h"

#include <limits>

namespace pteforge {
namespace {

constexpr int kMaxDepth = 512;

// The tree builder json::parse uses, behind a depth limit, keeping the first error's
// byte offset and message instead of throwing. A SAX handler: nlohmann's parser calls
// it for each token, and stops at the first `false`.
class BoundedTreeBuilder {
 public:
  explicit BoundedTreeBuilder(Json* root) : tree_(*root, /*allow_exceptions_=*/false) {}

  bool null() { return tree_.null(); }
  bool boolean(bool value) { return tree_.boolean(value); }
  bool number_integer(Json::number_integer_t value) { return tree_.number_integer(value); }
  bool number_unsigned(Json::number_unsigned_t value) { return tree_.number_unsigned(value); }
  bool number_float(Json::number_float_t value, const Json::string_t& text) { return tree_.number_float(value, text); }
  bool string(Json::string_t& value) { return tree_.string(value); }
  bool binary(Json::binary_t& value) { return tree_.binary(value); }
  bool key(Json::string_t& value) { return tree_.key(value); }
  bool start_object(std::size_t size) { return Enter() && tree_.start_object(size); }
  bool end_object() {
    --depth_;
    return tree_.end_object();
  }
  bool start_array(std::size_t size) { return Enter() && tree_.start_array(size); }
  bool end_array() {
    --depth_;
    return tree_.end_array();
  }
  bool parse_error(std::size_t position, const std::string& /*last_token*/, const nlohmann::detail::exception& error) {
    // `position` counts the bytes read, the offending one included.
    error_offset_ = position > 0 ? position - 1 : 0;
    error_ = Describe(error.what());
    return false;
  }

  bool too_deep() const { return too_deep_; }
  size_t error_offset() const { return error_offset_; }
  const std::string& error() const { return error_; }

 private:
  bool Enter() {
    too_deep_ = ++depth_ > kMaxDepth;
    return !too_deep_;
  }

  // "[json.exception.parse_error.101] parse error at line 1, column 5: syntax error ..."
  // becomes " (line 1, column 5): syntax error ...".
  static std::string Describe(const std::string& what) {
    std::string text = what.substr(what.find("] ") == std::string::npos ? 0 : what.find("] ") + 2);
    const std::string kAt = "parse error at ";
    const size_t colon = text.find(": ");
    if (text.compare(0, kAt.size(), kAt) == 0 && colon != std::string::npos) {
      return " (" + text.substr(kAt.size(), colon - kAt.size()) + ")" + text.substr(colon);
    }
    return ": " + text;
  }

  nlohmann::detail::json_sax_dom_parser<Json> tree_;
  int depth_ = 0;
  bool too_deep_ = false;
  size_t error_offset_ = 0;
  std::string error_;
};

bool HasType(const Json& value, Json::value_t type) {
  const bool number = type == Json::value_t::number_integer || type == Json::value_t::number_unsigned ||
                      type == Json::value_t::number_float;
  return number ? value.is_number() : value.type() == type;
}

// The member `key`, or nullptr when it is missing or null; a wrong type is an error.
StatusOr<const Json*> Member(const Json& object, std::string_view key, const std::string& where,
                             Json::value_t type) {
  const Json* value = FindMember(object, key);
  if (value == nullptr || value->is_null()) return static_cast<const Json*>(nullptr);
  if (!HasType(*value, type)) {
    return Failure(Error::InvalidArgument, "%s: '%.*s' must be a %s, not a %s", where.c_str(),
                   static_cast<int>(key.size()), key.data(), Json(type).type_name(), value->type_name());
  }
  return value;
}

Status Missing(std::string_view key, const std::string& where) {
  return Failure(Error::InvalidArgument, "%s: '%.*s' is missing", where.c_str(), static_cast<int>(key.size()),
                 key.data());
}

}  // namespace

StatusOr<Json> ParseJson(std::string_view text, const char* what) {
  Json root;
  BoundedTreeBuilder builder(&root);
  if (Json::sax_parse(text.begin(), text.end(), &builder)) return root;
  if (builder.too_deep()) {
    return Failure(Error::InvalidArgument, "%s: invalid JSON: nested more than %d levels deep", what, kMaxDepth);
  }
  return Failure(Error::InvalidArgument, "%s: invalid JSON at byte %zu%s", what, builder.error_offset(),
                 builder.error().c_str());
}

const Json* FindMember(const Json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

bool IsInt64(const Json& value) {
  if (value.is_number_unsigned()) {
    return value.get<Json::number_unsigned_t>() <=
           static_cast<Json::number_unsigned_t>(std::numeric_limits<int64_t>::max());
  }
  return value.is_number_integer();
}

int64_t AsInt64(const Json& value) {
  return value.is_number_unsigned() ? static_cast<int64_t>(value.get<Json::number_unsigned_t>())
                                    : value.get<Json::number_integer_t>();
}

StatusOr<const Json*> RequiredMember(const Json& object, std::string_view key, const std::string& where,
                                     Json::value_t type) {
  StatusOr<const Json*> value = Member(object, key, where, type);
  if (value.ok() && *value == nullptr) return Missing(key, where);
  return value;
}

Status RequiredString(const Json& object, std::string_view key, const std::string& where, std::string* out) {
  StatusOr<const Json*> value = RequiredMember(object, key, where, Json::value_t::string);
  if (!value.ok()) return value.status();
  *out = (*value)->get_ref<const std::string&>();
  return Status();
}

Status OptionalString(const Json& object, std::string_view key, const std::string& where,
                      const std::string& fallback, std::string* out) {
  StatusOr<const Json*> value = Member(object, key, where, Json::value_t::string);
  if (!value.ok()) return value.status();
  *out = *value == nullptr ? fallback : (*value)->get_ref<const std::string&>();
  return Status();
}

Status OptionalBool(const Json& object, std::string_view key, const std::string& where, bool fallback, bool* out) {
  StatusOr<const Json*> value = Member(object, key, where, Json::value_t::boolean);
  if (!value.ok()) return value.status();
  *out = *value == nullptr ? fallback : (*value)->get<bool>();
  return Status();
}

Status OptionalInt(const Json& object, std::string_view key, const std::string& where, int64_t fallback,
                   int64_t* out) {
  StatusOr<const Json*> value = Member(object, key, where, Json::value_t::number_integer);
  if (!value.ok()) return value.status();
  if (*value == nullptr) {
    *out = fallback;
    return Status();
  }
  if (!IsInt64(**value)) {
    return Failure(Error::InvalidArgument, "%s: '%.*s' must be an integer", where.c_str(),
                   static_cast<int>(key.size()), key.data());
  }
  *out = AsInt64(**value);
  return Status();
}

Status RequiredInt(const Json& object, std::string_view key, const std::string& where, int64_t* out) {
  const Json* value = FindMember(object, key);
  if (value == nullptr || value->is_null()) return Missing(key, where);
  return OptionalInt(object, key, where, 0, out);
}

Status UnsupportedType(const char* where, const std::string& type, const char* supported) {
  return Failure(Error::NotSupported, "%s type '%s' is not supported; supported: %s", where, type.c_str(), supported);
}

}  // namespace pteforge
