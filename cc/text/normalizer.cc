#include "cc/text/normalizer.h"

#include <utility>
#include <vector>

#include "cc/text/pattern.h"
#include "cc/text/unicode.h"
#include "cc/text/utf8.h"

namespace pteforge {
namespace {

const char kWhere[] = "tokenizer.json: normalizer";

// NFC, NFD or Lowercase: a function of the text (cc/text/unicode.h).
class UnicodeNormalizer : public Normalizer {
 public:
  explicit UnicodeNormalizer(StatusOr<std::string> (*function)(std::string_view)) : function_(function) {}
  Status Normalize(std::string* text) const override {
    StatusOr<std::string> normalized = function_(*text);
    if (!normalized.ok()) return normalized.status();
    *text = std::move(normalized).value();
    return Status();
  }

 private:
  StatusOr<std::string> (*function_)(std::string_view);
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
  explicit ReplaceNormalizer(Replacement replacement) : replacement_(std::move(replacement)) {}
  Status Normalize(std::string* text) const override { return replacement_.Apply(text); }

 private:
  Replacement replacement_;
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

StatusOr<std::unique_ptr<Normalizer>> MakeNormalizer(const Json& config) {
  std::string type;
  PTEFORGE_RETURN_IF_ERROR(RequiredString(config, "type", kWhere, &type));
  const std::string where = std::string(kWhere) + " " + type;
  if (type == "NFC") return std::unique_ptr<Normalizer>(new UnicodeNormalizer(unicode::Nfc));
  if (type == "NFD") return std::unique_ptr<Normalizer>(new UnicodeNormalizer(unicode::Nfd));
  if (type == "Lowercase") return std::unique_ptr<Normalizer>(new UnicodeNormalizer(unicode::Lowercase));
  if (type == "Prepend") {
    std::string prefix;
    PTEFORGE_RETURN_IF_ERROR(RequiredString(config, "prepend", where, &prefix));
    return std::unique_ptr<Normalizer>(new PrependNormalizer(std::move(prefix)));
  }
  if (type == "Replace") {
    StatusOr<Replacement> replacement = Replacement::FromConfig(config, where);
    if (!replacement.ok()) return replacement.status();
    return std::unique_ptr<Normalizer>(new ReplaceNormalizer(std::move(replacement).value()));
  }
  if (type == "Strip") {
    bool left, right;
    PTEFORGE_RETURN_IF_ERROR(OptionalBool(config, "strip_left", where, true, &left));
    PTEFORGE_RETURN_IF_ERROR(OptionalBool(config, "strip_right", where, true, &right));
    return std::unique_ptr<Normalizer>(new StripNormalizer(left, right));
  }
  if (type == "Sequence") {
    auto steps = MakeEach(config, "normalizers", where, &MakeNormalizer);
    if (!steps.ok()) return steps.status();
    return std::unique_ptr<Normalizer>(new SequenceNormalizer(std::move(steps).value()));
  }
  return UnsupportedType(kWhere, type, "NFC, NFD, Lowercase, Prepend, Replace, Strip, Sequence");
}

}  // namespace pteforge
