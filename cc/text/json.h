// A small JSON reader for tokenizer.json (and the golden test's data): the whole text
// into a tree of JsonValue. Strict RFC 8259 apart from accepting any number syntax that
// strtod does after a valid JSON start; nesting deeper than 512 levels is an error (no
// recursion on untrusted depth). Errors give the byte offset.
//
// A JsonValue owns its children; values are immutable after parsing and safe to read
// from several threads.
#ifndef PTEFORGE_CC_TEXT_JSON_H_
#define PTEFORGE_CC_TEXT_JSON_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cc/runtime/status.h"

namespace pteforge {

class JsonValue {
 public:
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject };

  Type type() const { return type_; }
  bool is_null() const { return type_ == Type::kNull; }
  bool is_bool() const { return type_ == Type::kBool; }
  bool is_number() const { return type_ == Type::kNumber; }
  bool is_string() const { return type_ == Type::kString; }
  bool is_array() const { return type_ == Type::kArray; }
  bool is_object() const { return type_ == Type::kObject; }

  bool bool_value() const { return bool_; }
  double number() const { return number_; }
  // True if the number is an integer that fits in int64_t exactly.
  bool is_integer() const;
  int64_t integer() const { return static_cast<int64_t>(number_); }
  const std::string& string() const { return string_; }
  const std::vector<JsonValue>& array() const { return array_; }
  // Members in document order (tokenizer.json has no duplicate keys that matter; the
  // first one wins in Find).
  const std::vector<std::pair<std::string, JsonValue>>& members() const { return members_; }

  // The member named `key` of an object, or nullptr (also for non-objects).
  const JsonValue* Find(std::string_view key) const;

  // "string", "number", ... for error messages.
  static const char* TypeName(Type type);

 private:
  friend class JsonParser;
  Type type_ = Type::kNull;
  bool bool_ = false;
  double number_ = 0;
  std::string string_;
  std::vector<JsonValue> array_;
  std::vector<std::pair<std::string, JsonValue>> members_;
};

// Parses a complete JSON document; `what` names it in error messages ("tokenizer.json").
StatusOr<JsonValue> ParseJson(std::string_view text, const char* what);

// Typed access to an object's members, with errors naming `where` (such as
// "tokenizer.json: pre_tokenizer Split") and the key. A missing member and null are the
// same: the Required* forms fail on them, the others give `fallback`.
Status RequiredString(const JsonValue& object, std::string_view key, const std::string& where,
                      std::string* out);
Status OptionalString(const JsonValue& object, std::string_view key, const std::string& where,
                      const std::string& fallback, std::string* out);
Status OptionalBool(const JsonValue& object, std::string_view key, const std::string& where,
                    bool fallback, bool* out);
Status RequiredInt(const JsonValue& object, std::string_view key, const std::string& where,
                   int64_t* out);
Status OptionalInt(const JsonValue& object, std::string_view key, const std::string& where,
                   int64_t fallback, int64_t* out);
// A member that must be there and be of `type`.
StatusOr<const JsonValue*> RequiredMember(const JsonValue& object, std::string_view key,
                                          const std::string& where, JsonValue::Type type);

// "WHERE type 'TYPE' is not supported; supported: SUPPORTED", for a component type
// (normalizer, pre_tokenizer, ...) this implementation does not have.
Status UnsupportedType(const char* where, const std::string& type, const char* supported);

// One component made by `make` from each element of the array member `key` (the steps of
// a Sequence normalizer, pre-tokenizer or decoder).
template <typename T>
StatusOr<std::vector<std::unique_ptr<T>>> MakeEach(const JsonValue& config, std::string_view key,
                                                   const std::string& where,
                                                   StatusOr<std::unique_ptr<T>> (*make)(const JsonValue&)) {
  StatusOr<const JsonValue*> list = RequiredMember(config, key, where, JsonValue::Type::kArray);
  if (!list.ok()) return list.status();
  std::vector<std::unique_ptr<T>> made;
  for (const JsonValue& element : (*list)->array()) {
    StatusOr<std::unique_ptr<T>> one = make(element);
    if (!one.ok()) return one.status();
    made.push_back(std::move(one).value());
  }
  return made;
}

}  // namespace pteforge

#endif  // PTEFORGE_CC_TEXT_JSON_H_
