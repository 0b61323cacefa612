#include "cc/cli/calls.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace pteforge {
namespace {

// Largest tensor a literal may make: literals are for tests and exploration.
constexpr int64_t kMaxLiteralElements = int64_t{1} << 26;

class Parser {
 public:
  explicit Parser(const std::string& text) : text_(text) {}

  StatusOr<Call> ParseCall() {
    Call call;
    call.text = text_;
    SkipSpace();
    call.method = Identifier();
    if (call.method.empty()) return Error("expected a method name");
    if (!Consume('(')) return Error("expected '(' after the method name");
    SkipSpace();
    if (!Consume(')')) {
      while (true) {
        auto value = ParseValue();
        if (!value.ok()) return value.status();
        call.args.push_back(std::move(value.value()));
        if (Consume(')')) break;
        if (!Consume(',')) return Error("expected ',' or ')'");
      }
    }
    SkipSpace();
    if (pos_ != text_.size()) return Error("unexpected text after the call");
    return call;
  }

  StatusOr<Value> ParseWholeValue() {
    auto value = ParseValue();
    if (!value.ok()) return value.status();
    SkipSpace();
    if (pos_ != text_.size()) return Error("unexpected text after the value");
    return value;
  }

 private:
  Status Error(const std::string& what) const {
    // Long literals (replay records) are cut: the column says where.
    std::string shown = text_.size() > 80 ? text_.substr(0, 77) + "..." : text_;
    return Failure(Error::InvalidArgument, "cannot parse '%s' at column %zu: %s", shown.c_str(), pos_ + 1,
                   what.c_str());
  }

  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  bool Consume(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  std::string Identifier() {
    SkipSpace();
    size_t start = pos_;
    if (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) return "";
    while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) ++pos_;
    return text_.substr(start, pos_ - start);
  }

  bool Number(double* value, bool* is_integer) {
    SkipSpace();
    const char* start = text_.c_str() + pos_;
    char* end = nullptr;
    *value = std::strtod(start, &end);
    if (end == start) return false;
    std::string token(start, static_cast<const char*>(end));
    *is_integer = token.find_first_of(".eEnN") == std::string::npos;
    pos_ += end - start;
    return true;
  }

  StatusOr<Value> ParseValue() {
    SkipSpace();
    size_t start = pos_;
    std::string word = Identifier();
    if (word == "true" || word == "false") return Value(word == "true");
    if (word.empty()) {
      double number;
      bool integer;
      if (!Number(&number, &integer)) return Error("expected a tensor (zeros[...], ...) or a number");
      if (integer) return Value(static_cast<int64_t>(number));
      return Value(number);
    }
    std::vector<double> values;
    double fill = 0;
    if (word == "full" || word == "values") {
      if (!Consume('(')) return Error("expected '(' after " + word);
      do {
        double number;
        bool integer;
        if (!Number(&number, &integer)) return Error("expected a number");
        values.push_back(number);
      } while (word == "values" && Consume(','));
      if (!Consume(')')) return Error(word == "full" ? "full() takes one number" : "expected ',' or ')'");
      if (word == "full") fill = values[0];
    } else if (word != "zeros" && word != "ones" && word != "arange") {
      pos_ = start;
      return Error("unknown value '" + word + "' (expected zeros, ones, arange, full(x), values(...), a number, "
                   "true or false)");
    }
    std::vector<int64_t> sizes;
    if (!Consume('[')) return Error("expected a shape like [4,8] after " + word);
    if (!Consume(']')) {
      do {
        double size;
        bool integer;
        if (!Number(&size, &integer) || !integer || size < 0) return Error("expected a non-negative integer size");
        sizes.push_back(static_cast<int64_t>(size));
      } while (Consume(','));
      if (!Consume(']')) return Error("expected ',' or ']' in the shape");
    }
    ScalarType dtype = ScalarType::Float;
    if (Consume(':')) {
      std::string name = Identifier();
      if (!ParseDType(name, &dtype)) return Error("unknown dtype '" + name + "'");
    }
    int64_t numel = 1;
    for (int64_t size : sizes) {
      if (size > 0 && numel > kMaxLiteralElements / size) return Error("tensor literal too large");
      numel *= size;
    }
    if (word == "values" && static_cast<int64_t>(values.size()) != numel) {
      return Error("values(...) has " + std::to_string(values.size()) + " numbers but the shape holds " +
                   std::to_string(numel));
    }
    HostTensor tensor = HostTensor::Zeros(dtype, sizes);
    for (int64_t i = 0; i < numel; ++i) {
      double x = word == "ones" ? 1.0 : word == "arange" ? static_cast<double>(i)
                 : word == "full" ? fill : word == "values" ? values[i] : 0.0;
      tensor.Set(i, x);
    }
    return Value(std::move(tensor));
  }

  const std::string& text_;
  size_t pos_ = 0;
};

}  // namespace

StatusOr<Call> ParseCall(const std::string& text) { return Parser(text).ParseCall(); }

StatusOr<Value> ParseValue(const std::string& text) { return Parser(text).ParseWholeValue(); }

namespace {

std::string Number(double x, const char* format) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char text[40];
  std::snprintf(text, sizeof(text), format, x);
  return text;
}

}  // namespace

std::string ValueLiteral(const Value& value) {
  if (const auto* tensor = std::get_if<HostTensor>(&value)) {
    std::string shape = "[";
    for (size_t d = 0; d < tensor->sizes.size(); ++d) shape += (d ? "," : "") + std::to_string(tensor->sizes[d]);
    shape += "]";
    std::string dtype = tensor->dtype == ScalarType::Float ? "" : std::string(":") + DTypeName(tensor->dtype);
    if (tensor->numel() == 0) return "zeros" + shape + dtype;
    const bool half = tensor->dtype == ScalarType::Half || tensor->dtype == ScalarType::BFloat16;
    const char* format = tensor->dtype == ScalarType::Float || half ? "%.9g"
                         : tensor->dtype == ScalarType::Double   ? "%.17g"
                                                                 : "%.0f";
    std::string text = "values(";
    for (int64_t i = 0; i < tensor->numel(); ++i) text += (i ? "," : "") + Number(tensor->Get(i), format);
    return text + ")" + shape + dtype;
  }
  if (const auto* integer = std::get_if<int64_t>(&value)) return std::to_string(*integer);
  if (const auto* real = std::get_if<double>(&value)) {
    std::string text = Number(*real, "%.17g");
    return text.find_first_of(".eEnN") == std::string::npos ? text + ".0" : text;
  }
  if (const auto* flag = std::get_if<bool>(&value)) return *flag ? "true" : "false";
  if (const auto* text = std::get_if<std::string>(&value)) return "\"" + *text + "\"";
  return "none";
}

StatusOr<std::vector<Call>> ParseCallsFile(const std::string& contents) {
  std::vector<Call> calls;
  int number = 0;
  // Line by line, without iostreams (this also runs on microcontrollers).
  for (size_t start = 0; start < contents.size();) {
    size_t end = contents.find('\n', start);
    if (end == std::string::npos) end = contents.size();
    std::string line = contents.substr(start, end - start);
    start = end + 1;
    ++number;
    size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    size_t last = line.find_last_not_of(" \t\r");
    auto call = ParseCall(line.substr(first, last - first + 1));
    if (!call.ok()) {
      return Failure(Error::InvalidArgument, "line %d: %s", number, call.status().message().c_str());
    }
    calls.push_back(std::move(call.value()));
  }
  return calls;
}

}  // namespace pteforge
