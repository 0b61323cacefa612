#include "cc/text/pattern.h"

namespace pteforge {

StatusOr<Pattern> Pattern::FromJson(const Json& pattern, const std::string& where) {
  Pattern result;
  if (const Json* literal = FindMember(pattern, "String"); literal != nullptr && literal->is_string()) {
    if (literal->get_ref<const std::string&>().empty()) {
      return Failure(Error::InvalidArgument, "%s: an empty String pattern is not supported", where.c_str());
    }
    result.literal_ = literal->get_ref<const std::string&>();
    return result;
  }
  if (const Json* regex = FindMember(pattern, "Regex"); regex != nullptr && regex->is_string()) {
    return FromRegex(regex->get_ref<const std::string&>(), where);
  }
  return Failure(Error::InvalidArgument, "%s: 'pattern' must be {\"String\": ...} or {\"Regex\": ...}",
                 where.c_str());
}

StatusOr<Pattern> Pattern::FromConfig(const Json& config, const std::string& where) {
  StatusOr<const Json*> pattern = RequiredMember(config, "pattern", where, Json::value_t::object);
  if (!pattern.ok()) return pattern.status();
  return FromJson(**pattern, where);
}

StatusOr<Pattern> Pattern::FromRegex(std::string_view regex, const std::string& where) {
  StatusOr<Regex> compiled = Regex::Compile(regex);
  if (!compiled.ok()) {
    return Failure(Error::NotSupported, "%s: %s", where.c_str(), compiled.status().message().c_str());
  }
  Pattern result;
  result.regex_ = std::move(compiled).value();
  return result;
}

StatusOr<std::vector<std::pair<size_t, size_t>>> Pattern::FindMatches(std::string_view text) const {
  std::vector<std::pair<size_t, size_t>> matches;
  if (!regex_.has_value()) {
    for (size_t at = text.find(literal_); at != std::string_view::npos;
         at = text.find(literal_, at + literal_.size())) {
      matches.emplace_back(at, at + literal_.size());
    }
    return matches;
  }
  return regex_->FindAll(text);
}

StatusOr<std::string> Pattern::ReplaceAll(std::string_view text, std::string_view content) const {
  auto matches = FindMatches(text);
  if (!matches.ok()) return matches.status();
  std::string out;
  size_t last = 0;
  for (const auto& [begin, end] : *matches) {
    out.append(text.substr(last, begin - last));
    out.append(content);
    last = end;
  }
  out.append(text.substr(last));
  return out;
}

StatusOr<Replacement> Replacement::FromConfig(const Json& config, const std::string& where) {
  StatusOr<Pattern> pattern = Pattern::FromConfig(config, where);
  if (!pattern.ok()) return pattern.status();
  std::string content;
  PTEFORGE_RETURN_IF_ERROR(RequiredString(config, "content", where, &content));
  return Replacement(std::move(pattern).value(), std::move(content));
}

Status Replacement::Apply(std::string* text) const {
  StatusOr<std::string> replaced = pattern_.ReplaceAll(*text, content_);
  if (!replaced.ok()) return replaced.status();
  *text = std::move(replaced).value();
  return Status();
}

}  // namespace pteforge
