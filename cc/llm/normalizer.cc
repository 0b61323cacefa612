#include "cc/llm/normalizer.h"

#include <utility>
#include <vector>

#include "cc/llm/pattern.h"
#include "cc/llm/unicode.h"
#include "cc/llm/utf8.h"

namespace pteforge {
namespace {

const char kWhere[] = "tokenizer.json: normalizer";

// NFC, NFD or Lowercase: a function of the code points.
class CodePointNormalizer : public Normalizer {
 public:
  explicit CodePointNormalizer(std::u32string (*function)(std::u32string_view)) : function_(function) {}
  Status Normalize(std::string* text) const override {
    *text = utf8::Encode(function_(utf8::Decode(*text)));
    return Status();
  }

 private:
  std::u32string (*function_)(std::u32string_view);
};

class PrependNormalizer : public Normalizer {
 public:
  explicit PrependNormalizer(std::string prefix) : prefix_(std::move(prefix)) {}
  Status Normalize(std::string* text) const override {
    if (!text->empty()) text->insert(0, prefix_);
    return Status();
  }

 private:
  std::string prefix_;
};

class ReplaceNormalizer : public Normalizer {
 public:
  ReplaceNormalizer(Pattern pattern, std::string content)
      : pattern_(std::move(pattern)), content_(std::move(content)) {}
  Status Normalize(std::string* text) const override {
    StatusOr<std::string> replaced = pattern_.ReplaceAll(*text, content_);
    if (!replaced.ok()) return replaced.status();
    *text = std::move(replaced).value();
    return Status();
  }

 private:
  Pattern pattern_;
  std::string content_;
};

// Strips White_Space characters from either end.
class StripNormalizer : public Normalizer {
 public:
  StripNormalizer(bool left, bool right) : left_(left), right_(right) {}
  Status Normalize(std::string* text) const override {
    std::u32string code_points = utf8::Decode(*text);
    size_t begin = 0, end = code_points.size();
    while (left_ && begin < end && unicode::IsWhiteSpace(code_points[begin])) ++begin;
    while (right_ && end > begin && unicode::IsWhiteSpace(code_points[end - 1])) --end;
    *text = utf8::Encode(std::u32string_view(code_points).substr(begin, end - begin));
    return Status();
  }

 private:
  bool left_, right_;
};

class SequenceNormalizer : public Normalizer {
 public:
  explicit SequenceNormalizer(std::vector<std::unique_ptr<Normalizer>> steps) : steps_(std::move(steps)) {}
  Status Normalize(std::string* text) const override {
    for (const auto& step : steps_) PTEFORGE_RETURN_IF_ERROR(step->Normalize(text));
    return Status();
  }

 private:
  std::vector<std::unique_ptr<Normalizer>> steps_;
};

}  // namespace

StatusOr<std::unique_ptr<Normalizer>> MakeNormalizer(const JsonValue& config) {
  std::string type;
  PTEFORGE_RETURN_IF_ERROR(RequiredString(config, "type", kWhere, &type));
  const std::string where = std::string(kWhere) + " " + type;
  if (type == "NFC") return std::unique_ptr<Normalizer>(new CodePointNormalizer(unicode::Nfc));
  if (type == "NFD") return std::unique_ptr<Normalizer>(new CodePointNormalizer(unicode::Nfd));
  if (type == "Lowercase") return std::unique_ptr<Normalizer>(new CodePointNormalizer(unicode::Lowercase));
  if (type == "Prepend") {
    std::string prefix;
    PTEFORGE_RETURN_IF_ERROR(RequiredString(config, "prepend", where, &prefix));
    return std::unique_ptr<Normalizer>(new PrependNormalizer(std::move(prefix)));
  }
  if (type == "Replace") {
    auto pattern_json = RequiredMember(config, "pattern", where, JsonValue::Type::kObject);
    if (!pattern_json.ok()) return pattern_json.status();
    StatusOr<Pattern> pattern = Pattern::FromJson(**pattern_json, where);
    if (!pattern.ok()) return pattern.status();
    std::string content;
    PTEFORGE_RETURN_IF_ERROR(RequiredString(config, "content", where, &content));
    return std::unique_ptr<Normalizer>(new ReplaceNormalizer(std::move(pattern).value(), std::move(content)));
  }
  if (type == "Strip") {
    bool left, right;
    PTEFORGE_RETURN_IF_ERROR(OptionalBool(config, "strip_left", where, true, &left));
    PTEFORGE_RETURN_IF_ERROR(OptionalBool(config, "strip_right", where, true, &right));
    return std::unique_ptr<Normalizer>(new StripNormalizer(left, right));
  }
  if (type == "Sequence") {
    auto list = RequiredMember(config, "normalizers", where, JsonValue::Type::kArray);
    if (!list.ok()) return list.status();
    std::vector<std::unique_ptr<Normalizer>> steps;
    for (const JsonValue& step : (*list)->array()) {
      auto normalizer = MakeNormalizer(step);
      if (!normalizer.ok()) return normalizer.status();
      steps.push_back(std::move(normalizer).value());
    }
    return std::unique_ptr<Normalizer>(new SequenceNormalizer(std::move(steps)));
  }
  return Failure(Error::NotSupported,
                 "%s type '%s' is not supported; supported: NFC, NFD, Lowercase, Prepend, Replace, "
                 "Strip, Sequence", kWhere, type.c_str());
}

}  // namespace pteforge
