// ChatTemplate: a model's chat template as the exporter stores it (the chat_template
// constant: python/pteforge/llm/chat_template.py, checked there against transformers'
// apply_chat_template): per-role text around each message, the text before the first
// one, a default system message, and the special token that ends a turn. Render gives
// the text transformers renders for the same messages.
//
// Immutable after FromJson; safe to read from several threads.
#ifndef PTEFORGE_CC_LLM_CHAT_TEMPLATE_H_
#define PTEFORGE_CC_LLM_CHAT_TEMPLATE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cc/runtime/session.h"
#include "cc/runtime/status.h"

namespace pteforge {

struct ChatMessage {
  std::string role;  // "system", "user" or "assistant"
  std::string content;
};

class ChatTemplate {
 public:
  // Parses the constant's JSON; `what` names the program in errors.
  static StatusOr<ChatTemplate> FromJson(std::string_view json, const std::string& what);
  // Reads the program's chat_template constant: an InvalidArgument error saying how to
  // export one when the program has none.
  static StatusOr<ChatTemplate> FromProgram(Session& session, const std::string& what);

  // The conversation's text; with the generation prompt (the assistant's prefix) at the
  // end when `add_generation_prompt`. Roles must be system, user or assistant.
  StatusOr<std::string> Render(const std::vector<ChatMessage>& messages, bool add_generation_prompt) const;

  // The text around a message of `role` (which must be one of the three).
  const std::string& prefix(std::string_view role) const;
  const std::string& suffix(std::string_view role) const;
  const std::string& start() const { return start_; }
  const std::optional<std::string>& default_system() const { return default_system_; }
  const std::string& end_of_turn() const { return end_of_turn_; }
  int64_t end_of_turn_id() const { return end_of_turn_id_; }

 private:
  struct Wrap {
    std::string prefix, suffix;
  };
  const Wrap& Of(std::string_view role) const;

  std::string start_;
  Wrap system_, user_, assistant_;
  std::optional<std::string> default_system_;
  std::string end_of_turn_;
  int64_t end_of_turn_id_ = -1;
};

}  // namespace pteforge

#endif  // PTEFORGE_CC_LLM_CHAT_TEMPLATE_H_
