#include "cc/llm/chat.h"

#include <algorithm>

#include "cc/text/utf8.h"

namespace pteforge {
namespace {

// Collects the streamed reply and passes it on.
class ReplySink : public TextSink {
 public:
  explicit ReplySink(TextSink* out) : out_(out) {}
  Status OnText(std::string_view piece) override {
    text_.append(piece);
    return out_ == nullptr ? Status() : out_->OnText(piece);
  }
  std::string& text() { return text_; }

 private:
  TextSink* out_;
  std::string text_;
};

}  // namespace

Chat::Chat(TextGenerator* generator, ChatTemplate chat_template)
    : generator_(generator),
      template_(std::move(chat_template)),
      reply_room_(generator->model().info().max_seq_len / 4) {}

StatusOr<std::unique_ptr<Chat>> Chat::Create(TextGenerator* generator, const std::string& what) {
  auto chat_template = ChatTemplate::FromProgram(generator->model().session(), what);
  if (!chat_template.ok()) return chat_template.status();
  std::unique_ptr<Chat> chat(new Chat(generator, std::move(chat_template.value())));
  PTEFORGE_RETURN_IF_ERROR(chat->Reset());
  return chat;
}

Status Chat::SetSystem(std::string system) {
  if (!messages_.empty() && messages_[0].role != "system") {
    return Failure(Error::InvalidArgument, "the system message is set before the first turn (or after a reset)");
  }
  messages_.assign(1, ChatMessage{"system", std::move(system)});
  return Status();
}

Status Chat::Reset() {
  messages_.clear();
  unwritten_.reset();
  return generator_->model().Reset();
}

StatusOr<std::vector<int64_t>> Chat::Encode(const std::string& text) const {
  // As apply_chat_template: the template's text brings its own special tokens.
  return generator_->tokenizer().Encode(text, /*add_special_tokens=*/false);
}

StatusOr<std::vector<int64_t>> Chat::TurnTokens(const std::string& user) const {
  const bool first = generator_->model().cached_tokens().empty();
  std::vector<ChatMessage> turn;
  if (first) turn = messages_;  // the system message, if set
  turn.push_back({"user", user});
  auto text = template_.Render(turn, /*add_generation_prompt=*/true);
  if (!text.ok()) return text.status();
  std::string rendered = std::move(text.value());
  if (!first) {
    // A later turn: without the conversation's start or default system message, after
    // the end of the previous reply.
    const std::string head = template_.Render({}, false).value();
    rendered = template_.suffix("assistant") + rendered.substr(head.size());
  }
  auto ids = Encode(rendered);
  if (!ids.ok() || !unwritten_) return ids;
  ids->insert(ids->begin(), *unwritten_);
  return ids;
}

StatusOr<std::vector<int64_t>> Chat::KeepLastTurns(const std::string& user, int64_t* dropped) {
  const int64_t max_seq_len = generator_->model().info().max_seq_len;
  const bool has_system = !messages_.empty() && messages_[0].role == "system";
  std::vector<size_t> turn_starts;  // where each earlier turn's user message is
  for (size_t i = has_system ? 1 : 0; i < messages_.size(); ++i) {
    if (messages_[i].role == "user") turn_starts.push_back(i);
  }
  for (size_t drop = 0; drop <= turn_starts.size(); ++drop) {
    std::vector<ChatMessage> kept;
    if (has_system) kept.push_back(messages_[0]);
    const size_t from = drop < turn_starts.size() ? turn_starts[drop] : messages_.size();
    kept.insert(kept.end(), messages_.begin() + static_cast<std::ptrdiff_t>(from), messages_.end());
    kept.push_back({"user", user});
    auto text = template_.Render(kept, /*add_generation_prompt=*/true);
    if (!text.ok()) return text.status();
    auto ids = Encode(text.value());
    if (!ids.ok()) return ids.status();
    if (static_cast<int64_t>(ids->size()) + std::max<int64_t>(reply_room_, 1) <= max_seq_len) {
      *dropped = static_cast<int64_t>(drop);
      kept.pop_back();
      messages_ = std::move(kept);
      unwritten_.reset();
      PTEFORGE_RETURN_IF_ERROR(generator_->model().Reset());
      return ids;
    }
  }
  return Failure(Error::OutOfResources,
                 "this message does not fit in the model's max_seq_len of %lld tokens even as the conversation's "
                 "only turn, with %lld tokens left for the reply: shorten it (or export with a larger max_seq_len)",
                 static_cast<long long>(max_seq_len), static_cast<long long>(reply_room_));
}

StatusOr<ChatReply> Chat::Send(const std::string& user, const GenerateOptions& options, TextSink* sink) {
  CausalLm& model = generator_->model();
  const int64_t max_seq_len = model.info().max_seq_len;
  // Checked here, not by the tokenizer: its offset would count the template's text too.
  const size_t invalid = utf8::FirstInvalidByte(user);
  if (invalid != user.size()) {
    return Failure(Error::InvalidArgument, "the message is not valid UTF-8 at byte %zu (0x%02X)", invalid,
                   static_cast<unsigned>(static_cast<unsigned char>(user[invalid])));
  }
  auto ids = TurnTokens(user);
  if (!ids.ok()) return ids.status();
  ChatReply reply;
  reply.cached_before = static_cast<int64_t>(model.cached_tokens().size());
  if (reply.cached_before + static_cast<int64_t>(ids->size()) >= max_seq_len) {
    if (reply.cached_before == 0) {  // the first turn: no earlier turn to drop
      return Failure(Error::OutOfResources,
                     "this message takes %lld tokens with the chat template, more than the model's max_seq_len of "
                     "%lld leaves for it: shorten it (or export with a larger max_seq_len)",
                     static_cast<long long>(ids->size()), static_cast<long long>(max_seq_len));
    }
    if (policy_ == OverflowPolicy::kRefuse) {
      return Failure(Error::OutOfResources,
                     "the conversation would outgrow the model's max_seq_len of %lld tokens: %lld are in the cache "
                     "and this turn adds %lld. Start a new conversation, or keep only the last turns that fit",
                     static_cast<long long>(max_seq_len), static_cast<long long>(reply.cached_before),
                     static_cast<long long>(ids->size()));
    }
    ids = KeepLastTurns(user, &reply.dropped_turns);
    if (!ids.ok()) return ids.status();
    reply.cached_before = 0;
  }
  GenerateOptions turn_options = options;
  turn_options.stop_tokens.push_back(template_.end_of_turn_id());
  ReplySink collected(sink);
  auto generation = generator_->Continue(ids.value(), turn_options, &collected);
  if (!generation.ok()) return generation.status();
  reply.prefilled_tokens = static_cast<int64_t>(ids->size());
  reply.generation = std::move(generation.value());
  reply.text = std::move(collected.text());
  // A reply ended by a stop token (end of turn, or an EOS id) continues with the
  // assistant's suffix text, which brings the end-of-turn token itself; otherwise its
  // last token is part of the reply and goes into the cache with the next turn.
  const int64_t last = reply.generation.tokens.back();
  if (reply.generation.stop == StopReason::kEos) {
    unwritten_.reset();
  } else {
    unwritten_ = last;
  }
  messages_.push_back({"user", user});
  messages_.push_back({"assistant", reply.text});
  return reply;
}

}  // namespace pteforge
