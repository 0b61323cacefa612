// The generate tool's chat mode (generate --chat): turns from a file of messages or
// from a person at a terminal, through a Chat (chat.h) whose cache stays between turns,
// each reply streamed as it comes.
//
// --messages=FILE.json holds the conversation as transformers' apply_chat_template takes
// it, a list of {"role": ..., "content": ...}: an optional system message first, then
// user messages. Assistant messages are refused: the replies are the model's own (they
// are what the cache holds).
//
// When a turn would outgrow the model's max_seq_len, the TurnSource decides: a file's
// flag (--on_overflow), or the person, asked. Never a silently cut conversation.
#ifndef PTEFORGE_CC_LLM_CHAT_RUN_H_
#define PTEFORGE_CC_LLM_CHAT_RUN_H_

#include <cstdio>
#include <functional>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cc/cli/flags.h"
#include "cc/llm/chat.h"

namespace pteforge {

// The messages of a --messages file.
struct ChatScript {
  std::optional<std::string> system;
  std::vector<std::string> users;
};

// Parses a --messages file's JSON; `what` (the file's name) goes into errors, which say
// which message is wrong and why.
StatusOr<ChatScript> ParseChatScript(std::string_view json, const std::string& what);

// Where the turns come from, and who decides when the conversation outgrows the model.
class TurnSource {
 public:
  virtual ~TurnSource() = default;
  // The next user message; nullopt when the conversation is over.
  virtual std::optional<std::string> NextUser() = 0;
  // The turn was refused (`why`: the conversation is too long): true to start again with
  // the system message and the last turns that fit, false to stop with that error.
  virtual bool KeepLastTurns(const std::string& why) = 0;
};

// The user messages of a ChatScript; an overflow goes as `keep_last_turns` says.
class ScriptTurns : public TurnSource {
 public:
  ScriptTurns(std::vector<std::string> users, bool keep_last_turns)
      : users_(std::move(users)), keep_last_turns_(keep_last_turns) {}
  std::optional<std::string> NextUser() override;
  bool KeepLastTurns(const std::string& why) override { return keep_last_turns_; }

 private:
  std::vector<std::string> users_;
  size_t next_ = 0;
  bool keep_last_turns_;
};

// One line a turn from `in`, after a prompt on `prompts` (a terminal's stderr; nullptr
// for none); an empty line is skipped, end of input ends the chat. An overflow goes as
// `decided` says, else the person is asked on `prompts` (no prompts: refused).
class LineTurns : public TurnSource {
 public:
  LineTurns(std::istream& in, std::FILE* prompts, std::optional<bool> decided)
      : in_(in), prompts_(prompts), decided_(decided) {}
  std::optional<std::string> NextUser() override;
  bool KeepLastTurns(const std::string& why) override;

 private:
  std::istream& in_;
  std::FILE* prompts_;
  std::optional<bool> decided_;
};

struct ChatRunOptions {
  GenerateOptions generate;
  // One JSON line per turn on stderr: the turn's cached and prefilled tokens, generated
  // tokens, time to first token, decode speed, dropped turns.
  bool stats = false;
};

// Every turn of `source` through `chat`: each reply streamed to `out`, then a newline;
// `tell` gets pteforge's own notes (turns dropped to make room). Returns the first
// error, an overflow the source declined included; the turns before it were answered.
Status RunChat(Chat& chat, TurnSource& source, const ChatRunOptions& options, TextSink& out,
               const std::function<void(const std::string&)>& tell);

// generate's chat flags: --chat, --messages=FILE.json, --system=TEXT,
// --on_overflow=refuse|last_turns.
void DefineChatFlags(Flags* flags);
// Whether the flags ask for a chat (--chat or --messages).
bool ChatRequested(const Flags& flags);

// What the chat flags ask for, read and checked before any model is loaded.
struct ChatRequest {
  std::optional<std::string> system;               // --system, or the file's
  std::optional<std::vector<std::string>> users;   // --messages' user turns; none: stdin
  std::optional<bool> keep_last_turns;             // --on_overflow, when given
};
// The request the flags make: InvalidArgument for a bad flag or messages file, or a
// prompt given too (--ids or arguments).
StatusOr<ChatRequest> ChatRequestFromFlags(const Flags& flags);

// The request's chat on `generator`'s program (`what` names it in errors): the turns of
// the messages file, or one line a turn from stdin (prompts and the overflow question on
// stderr when stdin is a terminal). Errors are the model's.
Status RunChatRequest(ChatRequest request, TextGenerator* generator, const std::string& what,
                      const ChatRunOptions& options, TextSink& out,
                      const std::function<void(const std::string&)>& tell);

}  // namespace pteforge

#endif  // PTEFORGE_CC_LLM_CHAT_RUN_H_
