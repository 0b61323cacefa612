#include "cc/text/post_processor.h"

#include <string>

namespace pteforge {
namespace {

const char kWhere[] = "tokenizer.json: post_processor";

// TemplateProcessing's "single" template: SpecialToken items around one Sequence "A".
StatusOr<SpecialTokenFrame> TemplateFrame(const Json& config, const std::string& where) {
  auto single = RequiredMember(config, "single", where, Json::value_t::array);
  if (!single.ok()) return single.status();
  auto special_tokens = RequiredMember(config, "special_tokens", where, Json::value_t::object);
  if (!special_tokens.ok()) return special_tokens.status();
  SpecialTokenFrame frame;
  bool seen_sequence = false;
  for (const Json& item : **single) {
    if (const Json* sequence = FindMember(item, "Sequence"); sequence != nullptr) {
      std::string id;
      PTEFORGE_RETURN_IF_ERROR(RequiredString(*sequence, "id", where, &id));
      if (id != "A" || seen_sequence) {
        return Failure(Error::NotSupported, "%s: the single template must hold $A once", where.c_str());
      }
      seen_sequence = true;
      continue;
    }
    const Json* special = FindMember(item, "SpecialToken");
    if (special == nullptr) {
      return Failure(Error::InvalidArgument, "%s: template items are SpecialToken or Sequence", where.c_str());
    }
    std::string name;
    PTEFORGE_RETURN_IF_ERROR(RequiredString(*special, "id", where, &name));
    const Json* entry = FindMember(**special_tokens, name);
    const Json* ids = entry == nullptr ? nullptr : FindMember(*entry, "ids");
    if (ids == nullptr || !ids->is_array()) {
      return Failure(Error::InvalidArgument, "%s: special token '%s' has no ids in special_tokens", where.c_str(),
                     name.c_str());
    }
    for (const Json& id : *ids) {
      if (!IsInt64(id) || AsInt64(id) < 0) {
        return Failure(Error::InvalidArgument, "%s: special token '%s' has a bad id", where.c_str(), name.c_str());
      }
      (seen_sequence ? frame.after : frame.before).push_back(AsInt64(id));
    }
  }
  if (!seen_sequence) return Failure(Error::InvalidArgument, "%s: the single template has no $A", where.c_str());
  return frame;
}

// BertProcessing / RobertaProcessing: "cls": [token, id], "sep": [token, id].
StatusOr<int64_t> PairId(const Json& config, const char* key, const std::string& where) {
  const Json* pair = FindMember(config, key);
  if (pair == nullptr || !pair->is_array() || pair->size() != 2 || !IsInt64((*pair)[1])) {
    return Failure(Error::InvalidArgument, "%s: '%s' must be [token, id]", where.c_str(), key);
  }
  return AsInt64((*pair)[1]);
}

}  // namespace

StatusOr<SpecialTokenFrame> MakePostProcessor(const Json* config) {
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
    auto list = RequiredMember(*config, "processors", where, Json::value_t::array);
    if (!list.ok()) return list.status();
    SpecialTokenFrame frame;
    // Each processor wraps what the ones before it made.
    for (const Json& step : **list) {
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
