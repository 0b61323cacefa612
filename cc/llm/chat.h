// Chat: a multi-turn conversation with a causal-LM .pte that carries a chat template
// (chat_template.h) and its tokenizer. The KV cache stays in the program between turns:
// a turn renders only its new text (the end of the previous reply, the user's message,
// the assistant's prefix), tokenizes it alone and prefills only those tokens; the reply
// streams to a TextSink and ends at the template's end-of-turn token (or an EOS id, or
// max_new_tokens). Turns join at the template's special tokens, which is what the
// exporter checked: the cache then holds the ids of the whole conversation rendered and
// tokenized at once, the replies as the model generated them.
//
// When a turn would not fit in max_seq_len, the overflow policy decides: kRefuse fails
// with Error::OutOfResources and changes nothing (the caller may then Reset, or switch
// to kKeepLastTurns and send again); kKeepLastTurns starts the cache again with the
// system message and the most recent turns that leave `reply_room` tokens for the reply,
// and says how many turns it dropped. Never a silently cut conversation.
//
// Not thread-safe; holds a pointer to the TextGenerator, which must outlive it and which
// it uses alone while it lives (its cache is the conversation).
#ifndef PTEFORGE_CC_LLM_CHAT_H_
#define PTEFORGE_CC_LLM_CHAT_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cc/llm/chat_template.h"
#include "cc/llm/text_generator.h"

namespace pteforge {

enum class OverflowPolicy { kRefuse, kKeepLastTurns };

struct ChatReply {
  std::string text;              // the reply, special tokens left out (as the sink received it)
  Generation generation;         // its tokens (the end-of-turn token included when it ended the reply)
  int64_t prefilled_tokens = 0;  // the turn's new tokens: all the cache was given
  int64_t cached_before = 0;     // tokens already in the cache when the turn started
  int64_t dropped_turns = 0;     // kKeepLastTurns: earlier turns left out to make room
};

class Chat {
 public:
  // The chat of `generator`'s program; an error if it has no chat template.
  static StatusOr<std::unique_ptr<Chat>> Create(TextGenerator* generator, const std::string& what);

  // The system message of the next conversation (none: the template's default, if any).
  // Only before the first turn (or after Reset).
  Status SetSystem(std::string system);

  void set_overflow_policy(OverflowPolicy policy) { policy_ = policy; }
  // Tokens kKeepLastTurns leaves free for the reply (default: a quarter of max_seq_len).
  void set_reply_room(int64_t tokens) { reply_room_ = tokens; }

  // One turn: the user's message in, the reply out (streamed to `sink` as it comes).
  // `options` as for generation; the template's end-of-turn token is added to its stops.
  StatusOr<ChatReply> Send(const std::string& user, const GenerateOptions& options, TextSink* sink);

  // Forgets the conversation (the system message too) and empties the cache.
  Status Reset();

  // The conversation so far: the system message if one was set, then user and assistant
  // messages.
  const std::vector<ChatMessage>& messages() const { return messages_; }
  const ChatTemplate& chat_template() const { return template_; }

 private:
  Chat(TextGenerator* generator, ChatTemplate chat_template);

  StatusOr<std::vector<int64_t>> Encode(const std::string& text) const;
  // The tokens that continue the cache with `user`'s turn.
  StatusOr<std::vector<int64_t>> TurnTokens(const std::string& user) const;
  // The conversation from its start with only the last turns that leave reply_room_;
  // sets *dropped.
  StatusOr<std::vector<int64_t>> KeepLastTurns(const std::string& user, int64_t* dropped);

  TextGenerator* generator_;
  ChatTemplate template_;
  OverflowPolicy policy_ = OverflowPolicy::kRefuse;
  int64_t reply_room_;
  std::vector<ChatMessage> messages_;
  // The previous reply's last token, which no step has written to the cache yet, when it
  // is part of the reply (not an end-of-turn or EOS token, which the template's text
  // brings back).
  std::optional<int64_t> unwritten_;
};

}  // namespace pteforge

#endif  // PTEFORGE_CC_LLM_CHAT_H_
