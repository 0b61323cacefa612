#include "cc/text/post_processor.h"

#include <string>

namespace pteforge {
namespace {

const char kWhere[] = "tokenizer.json: post_processor";

// TemplateProcessing's "single" template: SpecialToken items around one Sequence "A".
StatusOr<SpecialTokenFrame> TemplateFrame(const JsonValue& config, const std::string& where) {
  auto single = RequiredMember(config, "single", where, JsonValue::Type::kArray);
  if (!single.ok()) return single.status();
  auto special_tokens = RequiredMember(config, "special_tokens", where, JsonValue::Type::kObject);
  if (!special_tokens.ok()) return special_tokens.status();
  SpecialTokenFrame frame;
  bool seen_sequence = false;
  for (const JsonValue& item : (*single)->array()) {
    if (const JsonValue* sequence = item.Find("Sequence"); sequence != nullptr) {
      std::string id;
      PTEFORGE_RETURN_IF_ERROR(RequiredString(*sequence, "id", where, &id));
      if (id != "A" || seen_sequence) {
        return Failure(Error::NotSupported, "%s: the single template must hold $A once", where.c_str());
      }
      seen_sequence = true;
      continue;
    }
    const JsonValue* special = item.Find("SpecialToken");
    if (special == nullptr) {
      return Failure(Error::InvalidArgument, "%s: template items are SpecialToken or Sequence", where.c_str());
    }
    std::string name;
    PTEFORGE_RETURN_IF_ERROR(RequiredString(*special, "id", where, &name));
    const JsonValue* entry = (*special_tokens)->Find(name);
    const JsonValue* ids = entry == nullptr ? nullptr : entry->Find("ids");
    if (ids == nullptr || !ids->is_array()) {
      return Failure(Error::InvalidArgument, "%s: special token '%s' has no ids in special_tokens", where.c_str(),
                     name.c_str());
    }
    for (const JsonValue& id : ids->array()) {
      if (!id.is_integer() || id.integer() < 0) {
        return Failure(Error::InvalidArgument, "%s: special token '%s' has a bad id", where.c_str(), name.c_str());
      }
      (seen_sequence ? frame.after : frame.before).push_back(id.integer());
    }
  }
  if (!seen_sequence) return Failure(Error::InvalidArgument, "%s: the single template has no $A", where.c_str());
  return frame;
}

// BertProcessing / RobertaProcessing: "cls": [token, id], "sep": [token, id].
StatusOr<int64_t> PairId(const JsonValue& config, const char* key, const std::string& where) {
  const JsonValue* pair = config.Find(key);
  if (pair == nullptr || !pair->is_array() || pair->array().size() != 2 || !pair->array()[1].is_integer()) {
    return Failure(Error::InvalidArgument, "%s: '%s' must be [token, id]", where.c_str(), key);
  }
  return pair->array()[1].integer();
}

}  // namespace

StatusOr<SpecialTokenFrame> MakePostProcessor(const JsonValue* config) {
  if (config == nullptr || config->is_null()) return SpecialTokenFrame();
  std::string type;
  PTEFORGE_RETURN_IF_ERROR(RequiredString(*config, "type", kWhere, &type));
  const std::string where = std::string(kWhere) + " " + type;
  if (type == "ByteLevel") return SpecialTokenFrame();
  if (type == "TemplateProcessing") return TemplateFrame(*config, where);
  if (type == "BertProcessing" || type == "RobertaProcessing") {
    StatusOr<int64_t> cls = PairId(*config, "cls", where);
    if (!cls.ok()) return cls.status();
    StatusOr<int64_t> sep = PairId(*config, "sep", where);
    if (!sep.ok()) return sep.status();
    return SpecialTokenFrame{{*cls}, {*sep}};
  }
  if (type == "Sequence") {
    auto list = RequiredMember(*config, "processors", where, JsonValue::Type::kArray);
    if (!list.ok()) return list.status();
    SpecialTokenFrame frame;
    // Each processor wraps what the ones before it made.
    for (const JsonValue& step : (*list)->array()) {
      StatusOr<SpecialTokenFrame> inner = MakePostProcessor(&step);
      if (!inner.ok()) return inner.status();
      frame.before.insert(frame.before.begin(), inner->before.begin(), inner->before.end());
      frame.after.insert(frame.after.end(), inner->after.begin(), inner->after.end());
    }
    return frame;
  }
  return UnsupportedType(kWhere, type, "TemplateProcessing, BertProcessing, RobertaProcessing, ByteLevel, Sequence");
}

}  // namespace pteforge
