#include "cc/text/json.h"

#include <cmath>
#include <cstdlib>

#include "cc/text/utf8.h"

namespace pteforge {

bool JsonValue::is_integer() const {
  return type_ == Type::kNumber && std::trunc(number_) == number_ && std::fabs(number_) < 9.0e15;
}

const JsonValue* JsonValue::Find(std::string_view key) const {
  for (const auto& [name, value] : members_) {
    if (name == key) return &value;
  }
  return nullptr;
}

const char* JsonValue::TypeName(Type type) {
  switch (type) {
    case Type::kNull: return "null";
    case Type::kBool: return "boolean";
    case Type::kNumber: return "number";
    case Type::kString: return "string";
    case Type::kArray: return "array";
    case Type::kObject: return "object";
  }
  return "?";
}

class JsonParser {
 public:
  JsonParser(std::string_view text, const char* what) : text_(text), what_(what) {}

  StatusOr<JsonValue> Parse() {
    JsonValue root;
    PTEFORGE_RETURN_IF_ERROR(ParseValue(&root, 0));
    SkipSpace();
    if (pos_ != text_.size()) return Fail("unexpected text after the end of the document");
    return root;
  }

 private:
  static constexpr int kMaxDepth = 512;

  Status Fail(const char* problem) const {
    return Failure(Error::InvalidArgument, "%s: invalid JSON at byte %zu: %s", what_, pos_, problem);
  }

  void SkipSpace() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }

  bool Consume(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  Status ParseValue(JsonValue* out, int depth) {
    if (depth > kMaxDepth) return Fail("nested more than 512 levels deep");
    SkipSpace();
    if (pos_ >= text_.size()) return Fail("unexpected end of the document");
    const char c = text_[pos_];
    if (c == '{') return ParseObject(out, depth);
    if (c == '[') return ParseArray(out, depth);
    if (c == '"') {
      out->type_ = JsonValue::Type::kString;
      return ParseString(&out->string_);
    }
    if (Consume("null")) return Status();
    if (Consume("true") || Consume("false")) {
      out->type_ = JsonValue::Type::kBool;
      out->bool_ = c == 't';
      return Status();
    }
    if (c == '-' || (c >= '0' && c <= '9')) return ParseNumber(out);
    return Fail("expected a value");
  }

  Status ParseNumber(JsonValue* out) {
    size_t end = pos_;
    while (end < text_.size() && std::string_view("+-0123456789.eE").find(text_[end]) != std::string_view::npos) {
      ++end;
    }
    const std::string number(text_.substr(pos_, end - pos_));
    char* parsed_end = nullptr;
    const double value = std::strtod(number.c_str(), &parsed_end);
    if (parsed_end != number.c_str() + number.size() || !std::isfinite(value)) {
      return Fail("malformed number");
    }
    out->type_ = JsonValue::Type::kNumber;
    out->number_ = value;
    pos_ = end;
    return Status();
  }

  Status ParseHex4(char32_t* out) {
    if (pos_ + 4 > text_.size()) return Fail("truncated \\u escape");
    char32_t value = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = text_[pos_++];
      value <<= 4;
      if (c >= '0' && c <= '9') value |= c - '0';
      else if (c >= 'a' && c <= 'f') value |= c - 'a' + 10;
      else if (c >= 'A' && c <= 'F') value |= c - 'A' + 10;
      else return Fail("bad hex digit in a \\u escape");
    }
    *out = value;
    return Status();
  }

  Status ParseString(std::string* out) {
    ++pos_;  // the opening quote
    while (true) {
      if (pos_ >= text_.size()) return Fail("unterminated string");
      const auto c = static_cast<unsigned char>(text_[pos_]);
      if (c == '"') {
        ++pos_;
        return Status();
      }
      if (c < 0x20) return Fail("control character in a string");
      if (c != '\\') {
        const size_t length = utf8::SequenceLength(text_, pos_);
        if (length == 0) return Fail("invalid UTF-8 in a string");
        out->append(text_.substr(pos_, length));
        pos_ += length;
        continue;
      }
      if (++pos_ >= text_.size()) return Fail("unterminated escape");
      const char escape = text_[pos_++];
      switch (escape) {
        case '"': out->push_back('"'); break;
        case '\\': out->push_back('\\'); break;
        case '/': out->push_back('/'); break;
        case 'b': out->push_back('\b'); break;
        case 'f': out->push_back('\f'); break;
        case 'n': out->push_back('\n'); break;
        case 'r': out->push_back('\r'); break;
        case 't': out->push_back('\t'); break;
        case 'u': {
          char32_t code_point = 0;
          PTEFORGE_RETURN_IF_ERROR(ParseHex4(&code_point));
          if (code_point >= 0xD800 && code_point <= 0xDBFF) {
            char32_t low = 0;
            if (!Consume("\\u")) return Fail("unpaired surrogate in a \\u escape");
            PTEFORGE_RETURN_IF_ERROR(ParseHex4(&low));
            if (low < 0xDC00 || low > 0xDFFF) return Fail("unpaired surrogate in a \\u escape");
            code_point = 0x10000 + ((code_point - 0xD800) << 10) + (low - 0xDC00);
          } else if (code_point >= 0xDC00 && code_point <= 0xDFFF) {
            return Fail("unpaired surrogate in a \\u escape");
          }
          utf8::Append(code_point, out);
          break;
        }
        default:
          --pos_;
          return Fail("unknown escape");
      }
    }
  }

  Status ParseArray(JsonValue* out, int depth) {
    out->type_ = JsonValue::Type::kArray;
    ++pos_;
    SkipSpace();
    if (Consume("]")) return Status();
    while (true) {
      out->array_.emplace_back();
      PTEFORGE_RETURN_IF_ERROR(ParseValue(&out->array_.back(), depth + 1));
      SkipSpace();
      if (Consume("]")) return Status();
      if (!Consume(",")) return Fail("expected ',' or ']' in an array");
    }
  }

  Status ParseObject(JsonValue* out, int depth) {
    out->type_ = JsonValue::Type::kObject;
    ++pos_;
    SkipSpace();
    if (Consume("}")) return Status();
    while (true) {
      SkipSpace();
      if (pos_ >= text_.size() || text_[pos_] != '"') return Fail("expected a string key in an object");
      std::string key;
      PTEFORGE_RETURN_IF_ERROR(ParseString(&key));
      SkipSpace();
      if (!Consume(":")) return Fail("expected ':' after an object key");
      out->members_.emplace_back(std::move(key), JsonValue());
      PTEFORGE_RETURN_IF_ERROR(ParseValue(&out->members_.back().second, depth + 1));
      SkipSpace();
      if (Consume("}")) return Status();
      if (!Consume(",")) return Fail("expected ',' or '}' in an object");
    }
  }

  std::string_view text_;
  const char* what_;
  size_t pos_ = 0;
};

StatusOr<JsonValue> ParseJson(std::string_view text, const char* what) {
  return JsonParser(text, what).Parse();
}

namespace {

// The member `key`, or nullptr when it is missing or null; a wrong type is an error.
StatusOr<const JsonValue*> Member(const JsonValue& object, std::string_view key,
                                  const std::string& where, JsonValue::Type type) {
  const JsonValue* value = object.Find(key);
  if (value == nullptr || value->is_null()) return static_cast<const JsonValue*>(nullptr);
  if (value->type() != type) {
    return Failure(Error::InvalidArgument, "%s: '%.*s' must be a %s, not a %s", where.c_str(),
                   static_cast<int>(key.size()), key.data(), JsonValue::TypeName(type),
                   JsonValue::TypeName(value->type()));
  }
  return value;
}

Status Missing(std::string_view key, const std::string& where) {
  return Failure(Error::InvalidArgument, "%s: '%.*s' is missing", where.c_str(),
                 static_cast<int>(key.size()), key.data());
}

}  // namespace

StatusOr<const JsonValue*> RequiredMember(const JsonValue& object, std::string_view key,
                                          const std::string& where, JsonValue::Type type) {
  StatusOr<const JsonValue*> value = Member(object, key, where, type);
  if (value.ok() && *value == nullptr) return Missing(key, where);
  return value;
}

Status RequiredString(const JsonValue& object, std::string_view key, const std::string& where,
                      std::string* out) {
  StatusOr<const JsonValue*> value = RequiredMember(object, key, where, JsonValue::Type::kString);
  if (!value.ok()) return value.status();
  *out = (*value)->string();
  return Status();
}

Status OptionalString(const JsonValue& object, std::string_view key, const std::string& where,
                      const std::string& fallback, std::string* out) {
  StatusOr<const JsonValue*> value = Member(object, key, where, JsonValue::Type::kString);
  if (!value.ok()) return value.status();
  *out = *value == nullptr ? fallback : (*value)->string();
  return Status();
}

Status OptionalBool(const JsonValue& object, std::string_view key, const std::string& where,
                    bool fallback, bool* out) {
  StatusOr<const JsonValue*> value = Member(object, key, where, JsonValue::Type::kBool);
  if (!value.ok()) return value.status();
  *out = *value == nullptr ? fallback : (*value)->bool_value();
  return Status();
}

Status OptionalInt(const JsonValue& object, std::string_view key, const std::string& where,
                   int64_t fallback, int64_t* out) {
  StatusOr<const JsonValue*> value = Member(object, key, where, JsonValue::Type::kNumber);
  if (!value.ok()) return value.status();
  if (*value == nullptr) {
    *out = fallback;
    return Status();
  }
  if (!(*value)->is_integer()) {
    return Failure(Error::InvalidArgument, "%s: '%.*s' must be an integer", where.c_str(),
                   static_cast<int>(key.size()), key.data());
  }
  *out = (*value)->integer();
  return Status();
}

Status RequiredInt(const JsonValue& object, std::string_view key, const std::string& where,
                   int64_t* out) {
  if (object.Find(key) == nullptr || object.Find(key)->is_null()) return Missing(key, where);
  return OptionalInt(object, key, where, 0, out);
}

Status UnsupportedType(const char* where, const std::string& type, const char* supported) {
  return Failure(Error::NotSupported, "%s type '%s' is not supported; supported: %s", where, type.c_str(), supported);
}

}  // namespace pteforge
