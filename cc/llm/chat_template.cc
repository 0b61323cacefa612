#include "cc/llm/chat_template.h"

#include <algorithm>

#include "cc/runtime/constants.h"
#include "cc/text/json.h"

namespace pteforge {
namespace {

constexpr const char* kConstant = "chat_template";

}  // namespace

StatusOr<ChatTemplate> ChatTemplate::FromJson(std::string_view json, const std::string& what) {
  const std::string where = what + ": " + kConstant;
  auto parsed = ParseJson(json, where.c_str());
  if (!parsed.ok()) return parsed.status();
  const Json& root = parsed.value();
  ChatTemplate chat;
  PTEFORGE_RETURN_IF_ERROR(RequiredString(root, "start", where, &chat.start_));
  PTEFORGE_RETURN_IF_ERROR(RequiredString(root, "end_of_turn", where, &chat.end_of_turn_));
  PTEFORGE_RETURN_IF_ERROR(RequiredInt(root, "end_of_turn_id", where, &chat.end_of_turn_id_));
  const Json* system = FindMember(root, "default_system");
  if (system != nullptr && !system->is_null()) {
    if (!system->is_string()) return Failure(Error::InvalidProgram, "%s: default_system is not a string", where.c_str());
    chat.default_system_ = system->get<std::string>();
  }
  auto roles = RequiredMember(root, "roles", where, Json::value_t::object);
  if (!roles.ok()) return roles.status();
  for (auto [name, wrap] : {std::pair<const char*, Wrap*>{"system", &chat.system_}, {"user", &chat.user_},
                            {"assistant", &chat.assistant_}}) {
    auto role = RequiredMember(**roles, name, where + " roles", Json::value_t::object);
    if (!role.ok()) return role.status();
    const std::string role_where = where + " roles." + name;
    PTEFORGE_RETURN_IF_ERROR(RequiredString(**role, "prefix", role_where, &wrap->prefix));
    PTEFORGE_RETURN_IF_ERROR(RequiredString(**role, "suffix", role_where, &wrap->suffix));
  }
  if (chat.assistant_.suffix.rfind(chat.end_of_turn_, 0) != 0 || chat.end_of_turn_.empty()) {
    return Failure(Error::InvalidProgram, "%s: the assistant's suffix does not start with the end-of-turn token",
                   where.c_str());
  }
  return chat;
}

StatusOr<ChatTemplate> ChatTemplate::FromProgram(Session& session, const std::string& what) {
  const auto& constants = session.constants();
  if (std::find(constants.begin(), constants.end(), kConstant) == constants.end()) {
    return Failure(Error::InvalidArgument,
                   "%s has no chat template: export it from a model whose tokenizer_config.json has one "
                   "(pteforge-export --hf_causal_lm stores it), or give plain prompts",
                   what.c_str());
  }
  std::string json;
  PTEFORGE_RETURN_IF_ERROR(ReadConstant(session, kConstant, "a chat model", &json));
  return FromJson(json, what);
}

const ChatTemplate::Wrap& ChatTemplate::Of(std::string_view role) const {
  if (role == "system") return system_;
  return role == "user" ? user_ : assistant_;
}

const std::string& ChatTemplate::prefix(std::string_view role) const { return Of(role).prefix; }
const std::string& ChatTemplate::suffix(std::string_view role) const { return Of(role).suffix; }

StatusOr<std::string> ChatTemplate::Render(const std::vector<ChatMessage>& messages,
                                           bool add_generation_prompt) const {
  std::string text = start_;
  if (default_system_ && (messages.empty() || messages[0].role != "system")) {
    text += system_.prefix + *default_system_ + system_.suffix;
  }
  for (const ChatMessage& message : messages) {
    if (message.role != "system" && message.role != "user" && message.role != "assistant") {
      return Failure(Error::InvalidArgument, "a message's role is '%s': it must be system, user or assistant",
                     message.role.c_str());
    }
    const Wrap& wrap = Of(message.role);
    text += wrap.prefix + message.content + wrap.suffix;
  }
  if (add_generation_prompt) text += assistant_.prefix;
  return text;
}

}  // namespace pteforge
