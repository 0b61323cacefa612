// tokenizer.json (and the golden test's data) read with nlohmann-json: ParseJson turns
// a whole document into a Json tree, or a Status naming the byte offset and what is
// wrong; the other functions read members by name with errors that say where.
//
// Parsing never recurses and stops at 512 levels of nesting, so that no caller that
// walks the tree (a Sequence of Sequences) can be driven deep on untrusted input.
// Objects are keyed maps: of keys given twice, the last one counts (as serde_json's
// maps in Hugging Face tokenizers). A Json tree is immutable after parsing and safe to
// read from several threads.
#ifndef PTEFORGE_CC_TEXT_JSON_H_
#define PTEFORGE_CC_TEXT_JSON_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "cc/runtime/status.h"

namespace pteforge {

using Json = nlohmann::json;

// Parses a complete JSON document; `what` names it in error messages ("tokenizer.json").
StatusOr<Json> ParseJson(std::string_view text, const char* what);

// The member named `key` of an object, or nullptr (also for values that are not objects).
const Json* FindMember(const Json& object, std::string_view key);

// True for a number that is an integer (not written with a fraction or an exponent)
// within int64_t; then AsInt64 gives it.
bool IsInt64(const Json& value);
int64_t AsInt64(const Json& value);

// Typed access to an object's members, with errors naming `where` (such as
// "tokenizer.json: pre_tokenizer Split") and the key. A missing member and null are the
// same: the Required* forms fail on them, the others give `fallback`.
Status RequiredString(const Json& object, std::string_view key, const std::string& where, std::string* out);
Status OptionalString(const Json& object, std::string_view key, const std::string& where,
                      const std::string& fallback, std::string* out);
Status OptionalBool(const Json& object, std::string_view key, const std::string& where, bool fallback, bool* out);
Status RequiredInt(const Json& object, std::string_view key, const std::string& where, int64_t* out);
Status OptionalInt(const Json& object, std::string_view key, const std::string& where, int64_t fallback,
                   int64_t* out);
// A member that must be there and be of `type`.
StatusOr<const Json*> RequiredMember(const Json& object, std::string_view key, const std::string& where,
                                     Json::value_t type);

// "WHERE type 'TYPE' is not supported; supported: SUPPORTED", for a component type
// (normalizer, pre_tokenizer, ...) this implementation does not have.
Status UnsupportedType(const char* where, const std::string& type, const char* supported);

// One component made by `make` from each element of the array member `key` (the steps of
// a Sequence normalizer, pre-tokenizer or decoder).
template <typename T>
StatusOr<std::vector<std::unique_ptr<T>>> MakeEach(const Json& config, std::string_view key,
                                                   const std::string& where,
                                                   StatusOr<std::unique_ptr<T>> (*make)(const Json&)) {
  StatusOr<const Json*> list = RequiredMember(config, key, where, Json::value_t::array);
  if (!list.ok()) return list.status();
  std::vector<std::unique_ptr<T>> made;
  for (const Json& element : **list) {
    StatusOr<std::unique_ptr<T>> one = make(element);
    if (!one.ok()) return one.status();
    made.push_back(std::move(one).value());
  }
  return made;
}

}  // namespace pteforge

#endif  // PTEFORGE_CC_TEXT_JSON_H_
