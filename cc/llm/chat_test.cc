// Chat on the tiny chat model (//models/llm:tiny_chat_xnnpack_pte, a GGUF read by
// pteforge.llm.from_gguf.reader, SmolLM2's template): turn by turn with the cache kept, its
// replies (ids and text) equal transformers' greedy generation from each whole
// conversation, each turn prefills only its new tokens, the cache holds the ids of the
// whole conversation, and a conversation that outgrows max_seq_len is refused without
// change, or restarted with its last turns (cc/llm/testdata/make_chat_golden.py).
#include "cc/llm/chat.h"

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cc/text/json.h"

namespace pteforge {
namespace {

constexpr const char* kProgram = "models/llm/tiny_chat_xnnpack.pte";

constexpr const char* kGolden = "cc/llm/testdata/chat.golden.json";

std::string ReadGolden() {
  std::ifstream file(kGolden, std::ios::binary);
  std::stringstream contents;
  contents << file.rdbuf();
  return contents.str();
}

std::vector<int64_t> Ids(const Json& list) { return list.get<std::vector<int64_t>>(); }

class ChatTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto golden = ParseJson(ReadGolden(), kGolden);
    ASSERT_TRUE(golden.ok()) << golden.status().message();
    golden_ = std::move(golden.value());
    auto generator = TextGenerator::Open(kProgram);
    ASSERT_TRUE(generator.ok()) << generator.status().message();
    generator_ = std::move(generator.value());
    auto chat = Chat::Create(generator_.get(), kProgram);
    ASSERT_TRUE(chat.ok()) << chat.status().message();
    chat_ = std::move(chat.value());
    options_ = generator_->model().Defaults();
    options_.max_new_tokens = golden_.at("max_new_tokens").get<int64_t>();
  }

  // Sends `turn`'s user message; checks the reply and the cache against the golden.
  void ExpectTurn(const Json& turn, int64_t cached_before) {
    auto reply = chat_->Send(turn.at("user").get<std::string>(), options_, nullptr);
    ASSERT_TRUE(reply.ok()) << reply.status().message();
    const std::vector<int64_t> cache_after = Ids(turn.at("cache_after"));
    const std::vector<int64_t> expected_reply = Ids(turn.at("reply_ids"));
    EXPECT_EQ(reply->generation.tokens, expected_reply);
    EXPECT_EQ(reply->text, turn.at("reply_text").get<std::string>());
    EXPECT_STREQ(StopReasonName(reply->generation.stop), turn.at("stop").get<std::string>().c_str());
    EXPECT_EQ(generator_->model().cached_tokens(), cache_after);
    EXPECT_EQ(reply->cached_before, cached_before);
    // Only the turn's new tokens were prefilled: the rest was in the cache already.
    EXPECT_EQ(reply->prefilled_tokens,
              static_cast<int64_t>(cache_after.size()) - cached_before - (static_cast<int64_t>(expected_reply.size()) - 1));
  }

  Json golden_;
  std::unique_ptr<TextGenerator> generator_;
  std::unique_ptr<Chat> chat_;
  GenerateOptions options_;
};

TEST_F(ChatTest, TurnsEqualTransformersOnTheWholeConversation) {
  int ended_by_end_of_turn = 0;
  for (const Json& conversation : golden_.at("conversations")) {
    ASSERT_TRUE(chat_->Reset().ok());
    const Json* system = &conversation.at("system");
    if (!system->is_null()) {
      ASSERT_TRUE(chat_->SetSystem(system->get<std::string>()).ok());
    }
    int64_t cached = 0;
    for (const Json& turn : conversation.at("turns")) {
      SCOPED_TRACE(turn.at("user").get<std::string>());
      ExpectTurn(turn, cached);
      cached = static_cast<int64_t>(generator_->model().cached_tokens().size());
      ended_by_end_of_turn += turn.at("stop").get<std::string>() == "eos";
    }
  }
  // Both ways a reply ends are exercised (a reply's end-of-turn token, max_new_tokens).
  EXPECT_GT(ended_by_end_of_turn, 0);
}

TEST_F(ChatTest, OverflowIsRefusedUnchangedThenRestartedWithTheLastTurns) {
  const Json& overflow = golden_.at("overflow");
  const auto& turns = overflow.at("turns");
  chat_->set_reply_room(overflow.at("reply_room").get<int64_t>());
  int64_t cached = 0;
  for (size_t i = 0; i + 1 < turns.size(); ++i) {
    ExpectTurn(turns[i], cached);
    cached = static_cast<int64_t>(generator_->model().cached_tokens().size());
  }
  const Json& last = turns.back();
  ASSERT_EQ(last.at("refused_with_cached").get<int64_t>(), cached);
  const std::vector<ChatMessage> before = chat_->messages();
  auto refused = chat_->Send(last.at("user").get<std::string>(), options_, nullptr);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), Error::OutOfResources);
  EXPECT_NE(refused.status().message().find("would outgrow the model's max_seq_len of 256 tokens"), std::string::npos)
      << refused.status().message();
  EXPECT_EQ(chat_->messages().size(), before.size());
  EXPECT_EQ(static_cast<int64_t>(generator_->model().cached_tokens().size()), cached);

  chat_->set_overflow_policy(OverflowPolicy::kKeepLastTurns);
  auto reply = chat_->Send(last.at("user").get<std::string>(), options_, nullptr);
  ASSERT_TRUE(reply.ok()) << reply.status().message();
  EXPECT_EQ(reply->dropped_turns, last.at("dropped_turns").get<int64_t>());
  EXPECT_GT(reply->dropped_turns, 0);
  EXPECT_EQ(reply->cached_before, 0);
  EXPECT_EQ(reply->generation.tokens, Ids(last.at("reply_ids")));
  EXPECT_EQ(generator_->model().cached_tokens(), Ids(last.at("cache_after")));
}

TEST_F(ChatTest, AFirstMessageTooLongOrNotUtf8IsRefusedUnchanged) {
  // max_seq_len 256: "word " is a token or more each.
  std::string long_message;
  for (int i = 0; i < 300; ++i) long_message += "word ";
  auto refused = chat_->Send(long_message, options_, nullptr);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), Error::OutOfResources);
  EXPECT_NE(refused.status().message().find("this message takes"), std::string::npos) << refused.status().message();
  EXPECT_NE(refused.status().message().find("shorten it"), std::string::npos) << refused.status().message();

  // The offset is the message's own, not the rendered template's.
  auto invalid = chat_->Send("hello \xff world", options_, nullptr);
  ASSERT_FALSE(invalid.ok());
  EXPECT_EQ(invalid.status().code(), Error::InvalidArgument);
  EXPECT_NE(invalid.status().message().find("the message is not valid UTF-8 at byte 6 (0xFF)"), std::string::npos)
      << invalid.status().message();
  EXPECT_TRUE(chat_->messages().empty() || chat_->messages().front().role == "system");
  EXPECT_TRUE(generator_->model().cached_tokens().empty());
}

TEST_F(ChatTest, RendersTheTemplateItWasExportedWith) {
  const ChatTemplate& chat_template = chat_->chat_template();
  EXPECT_EQ(chat_template.end_of_turn(), "<|im_end|>");
  auto text = chat_template.Render({{"user", "Hi"}, {"assistant", "Hello."}, {"user", "Bye"}}, true);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(text.value(),
            "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n"
            "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\nHello.<|im_end|>\n<|im_start|>user\nBye"
            "<|im_end|>\n<|im_start|>assistant\n");
  EXPECT_FALSE(chat_template.Render({{"tool", "x"}}, false).ok());
}

TEST(ChatWithoutTemplate, IsRefusedByName) {
  auto generator = TextGenerator::Open("models/llm/tiny_qwen2_xnnpack.pte");
  ASSERT_TRUE(generator.ok()) << generator.status().message();
  auto chat = Chat::Create(generator.value().get(), "tiny_qwen2_xnnpack.pte");
  ASSERT_FALSE(chat.ok());
  EXPECT_NE(chat.status().message().find("tiny_qwen2_xnnpack.pte has no chat template"), std::string::npos)
      << chat.status().message();
}

}  // namespace
}  // namespace pteforge
