#include "cc/llm/chat_run.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include "cc/text/json.h"

namespace pteforge {

StatusOr<ChatScript> ParseChatScript(std::string_view json, const std::string& what) {
  auto parsed = ParseJson(json, what.c_str());
  if (!parsed.ok()) return parsed.status();
  const Json& messages = parsed.value();
  if (!messages.is_array()) {
    return Failure(Error::InvalidArgument, "%s: expected a list of messages ([{\"role\": \"user\", \"content\": ...}])",
                   what.c_str());
  }
  ChatScript script;
  for (size_t i = 0; i < messages.size(); ++i) {
    const std::string where = what + ": message " + std::to_string(i + 1);
    if (!messages[i].is_object()) return Failure(Error::InvalidArgument, "%s is not an object", where.c_str());
    std::string role, content;
    PTEFORGE_RETURN_IF_ERROR(RequiredString(messages[i], "role", where, &role));
    PTEFORGE_RETURN_IF_ERROR(RequiredString(messages[i], "content", where, &content));
    if (role == "system") {
      if (i != 0) return Failure(Error::InvalidArgument, "%s: the system message must come first", where.c_str());
      script.system = std::move(content);
    } else if (role == "user") {
      script.users.push_back(std::move(content));
    } else if (role == "assistant") {
      return Failure(Error::InvalidArgument,
                     "%s: an assistant message; the replies are the model's own, so give only the system and "
                     "user messages",
                     where.c_str());
    } else {
      return Failure(Error::InvalidArgument, "%s: role '%s' is not one of system, user", where.c_str(),
                     role.c_str());
    }
  }
  if (script.users.empty()) return Failure(Error::InvalidArgument, "%s: no user message", what.c_str());
  return script;
}

std::optional<std::string> ScriptTurns::NextUser() {
  if (next_ >= users_.size()) return std::nullopt;
  return users_[next_++];
}

std::optional<std::string> LineTurns::NextUser() {
  std::string line;
  while (true) {
    if (prompts_ != nullptr) {
      std::fputs("> ", prompts_);
      std::fflush(prompts_);
    }
    if (!std::getline(in_, line)) return std::nullopt;
    if (line.find_first_not_of(" \t\r") != std::string::npos) return line;
  }
}

bool LineTurns::KeepLastTurns(const std::string& why) {
  if (decided_) return *decided_;
  if (prompts_ == nullptr) return false;
  std::fprintf(prompts_, "%s.\nStart again with the last turns that fit? [y/N] ", why.c_str());
  std::fflush(prompts_);
  std::string answer;
  return std::getline(in_, answer) && !answer.empty() && (answer[0] == 'y' || answer[0] == 'Y');
}

namespace {

// One turn's figures as a JSON line on stderr (generate --stats).
void PrintStats(int turn, const ChatReply& reply) {
  const Generation& g = reply.generation;
  std::fprintf(stderr,
               "{\"turn\": %d, \"cached_before\": %lld, \"prefilled_tokens\": %lld, \"generated_tokens\": %zu, "
               "\"dropped_turns\": %lld, \"stop\": \"%s\", \"prefill_ms\": %.3f, \"time_to_first_token_ms\": %.3f, "
               "\"decode_tokens_per_s\": %.3f}\n",
               turn, static_cast<long long>(reply.cached_before), static_cast<long long>(reply.prefilled_tokens),
               g.tokens.size(), static_cast<long long>(reply.dropped_turns), StopReasonName(g.stop), g.prefill_ms,
               g.first_token_ms, g.decode_ms > 0 ? g.decode_steps / (g.decode_ms / 1e3) : 0.0);
}

}  // namespace

Status RunChat(Chat& chat, TurnSource& source, const ChatRunOptions& options, TextSink& out,
               const std::function<void(const std::string&)>& tell) {
  int turn = 0;
  while (std::optional<std::string> user = source.NextUser()) {
    ++turn;
    auto reply = chat.Send(*user, options.generate, &out);
    if (!reply.ok() && reply.status().code() == Error::OutOfResources && chat.messages().size() > 1 &&
        source.KeepLastTurns(reply.status().message())) {
      chat.set_overflow_policy(OverflowPolicy::kKeepLastTurns);
      reply = chat.Send(*user, options.generate, &out);
    }
    if (!reply.ok()) {
      return Failure(reply.status().code(), "turn %d: %s", turn, reply.status().message().c_str());
    }
    PTEFORGE_RETURN_IF_ERROR(out.OnText("\n"));
    if (reply->dropped_turns > 0) {
      tell("started again without the first " + std::to_string(reply->dropped_turns) +
           " turn(s) to stay within the model's max_seq_len");
    }
    if (options.stats) PrintStats(turn, reply.value());
  }
  return Status();
}

void DefineChatFlags(Flags* flags) {
  flags->DefineSwitch("chat", "chat with the model's chat template: one line a turn from stdin, the cache kept");
  flags->Define("messages", "a chat's messages as JSON ([{\"role\": \"user\", \"content\": ...}]): one turn per "
                "user message");
  flags->Define("system", "the chat's system message (default: the template's, if it has one)");
  flags->Define("on_overflow", "when a chat outgrows max_seq_len: refuse (default) or last_turns (start again "
                "with the last turns that fit); at a terminal, you are asked");
}

bool ChatRequested(const Flags& flags) { return flags.IsSet("chat") || flags.IsSet("messages"); }

StatusOr<ChatRequest> ChatRequestFromFlags(const Flags& flags) {
  if (flags.IsSet("ids") || !flags.positional().empty()) {
    return Failure(Error::InvalidArgument, "a chat takes its turns from --messages or stdin, not from --ids or "
                   "arguments");
  }
  ChatRequest request;
  if (flags.IsSet("on_overflow")) {
    const std::string& overflow = flags.Get("on_overflow");
    if (overflow != "refuse" && overflow != "last_turns") {
      return Failure(Error::InvalidArgument, "--on_overflow=%s: expected refuse or last_turns", overflow.c_str());
    }
    request.keep_last_turns = overflow == "last_turns";
  }
  if (flags.IsSet("messages")) {
    const std::string& path = flags.Get("messages");
    std::ifstream file(path, std::ios::binary);
    if (!file) return Failure(Error::InvalidArgument, "--messages=%s: cannot read the file", path.c_str());
    std::stringstream contents;
    contents << file.rdbuf();
    auto script = ParseChatScript(contents.str(), path);
    if (!script.ok()) return script.status();
    if (flags.IsSet("system") && script->system) {
      return Failure(Error::InvalidArgument, "--system and a system message in %s: give one of them", path.c_str());
    }
    request.system = std::move(script->system);
    request.users = std::move(script->users);
  }
  if (flags.IsSet("system")) request.system = flags.Get("system");
  return request;
}

Status RunChatRequest(ChatRequest request, TextGenerator* generator, const std::string& what,
                      const ChatRunOptions& options, TextSink& out,
                      const std::function<void(const std::string&)>& tell) {
  auto chat = Chat::Create(generator, what);
  if (!chat.ok()) return chat.status();
  if (request.system) PTEFORGE_RETURN_IF_ERROR(chat.value()->SetSystem(*request.system));
  std::unique_ptr<TurnSource> source;
  if (request.users) {
    source = std::make_unique<ScriptTurns>(std::move(*request.users), request.keep_last_turns.value_or(false));
  } else {
    std::FILE* prompts = isatty(STDIN_FILENO) != 0 ? stderr : nullptr;
    source = std::make_unique<LineTurns>(std::cin, prompts, request.keep_last_turns);
  }
  return RunChat(*chat.value(), *source, options, out, tell);
}

}  // namespace pteforge
