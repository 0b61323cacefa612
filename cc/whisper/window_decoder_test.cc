#include "cc/whisper/window_decoder.h"

#include <cmath>
#include <map>
#include <vector>

#include "cc/whisper/test_vocabulary.h"
#include "gtest/gtest.h"

namespace pteforge {
namespace {

constexpr float kUnlikely = -30.0f;

// A decoder whose next-token logits depend on what its row was fed since the prompt's
// last token: `probabilities[history]` (log taken), every other id kUnlikely. Checks
// that every step comes at the next position.
class ScriptedModel : public Seq2SeqModel {
 public:
  ScriptedModel(std::map<std::vector<int64_t>, std::map<int64_t, double>> script, size_t prompt_tokens)
      : script_(std::move(script)), prompt_tokens_(prompt_tokens) {}

  Status Encode(const std::vector<std::vector<int64_t>>& sources, int beams) override {
    EXPECT_EQ(sources.size(), 1u);
    fed_.assign(beams, {});
    return Status();
  }

  // Advances the first tokens.size() rows.
  StatusOr<StepScores> Step(const std::vector<int64_t>& tokens, int64_t length) override {
    EXPECT_LE(tokens.size(), fed_.size());
    StepScores scores;
    scores.width = 13;
    for (size_t row = 0; row < tokens.size(); ++row) {
      fed_[row].push_back(tokens[row]);
      EXPECT_EQ(static_cast<int64_t>(fed_[row].size()), length);
      std::vector<float> logits(13, kUnlikely);
      if (fed_[row].size() >= prompt_tokens_) {
        // The history after the prompt's last token (the start token).
        const std::vector<int64_t> history(fed_[row].begin() + prompt_tokens_, fed_[row].end());
        auto it = script_.find(history);
        if (it != script_.end()) {
          for (const auto& [id, p] : it->second) logits[id] = static_cast<float>(std::log(p));
        }
      }
      scores.values.insert(scores.values.end(), logits.begin(), logits.end());
    }
    ++steps_;
    return scores;
  }

  Status Reorder(const std::vector<int64_t>& rows) override {
    std::vector<std::vector<int64_t>> next;
    for (int64_t row : rows) next.push_back(fed_[row]);
    fed_ = std::move(next);
    return Status();
  }

  bool CanPrefill() const override { return can_prefill; }
  StatusOr<StepScores> Prefill(const std::vector<int64_t>& tokens, int64_t length, int64_t position) override {
    EXPECT_TRUE(can_prefill);
    fed_[0].insert(fed_[0].end(), tokens.begin(), tokens.end());
    EXPECT_EQ(static_cast<int64_t>(fed_[0].size()), length);
    EXPECT_LT(position, static_cast<int64_t>(tokens.size()));
    ++prefills;
    StepScores scores;
    scores.width = 13;
    scores.values.assign(13, kUnlikely);
    scores.values[5] = 0.0f;  // <|nocaptions|> certain after the prompt's tokens
    return scores;
  }

  int64_t vocab_size() const override { return 13; }
  bool can_prefill = false;
  int prefills = 0;
  int steps() const { return steps_; }
  const std::vector<std::vector<int64_t>>& fed() const { return fed_; }

 private:
  std::map<std::vector<int64_t>, std::map<int64_t, double>> script_;
  size_t prompt_tokens_;
  std::vector<std::vector<int64_t>> fed_;
  int steps_ = 0;
};

WindowDecodeOptions NoProcessors(int beams) {
  WindowDecodeOptions options;
  options.beam_size = beams;
  options.max_length = 20;
  return options;
}

// Without timestamps: greedy takes 0 then <|endoftext|>, beam search finds [1], whose
// ending is likelier although its first token is not.
const std::map<std::vector<int64_t>, std::map<int64_t, double>> kBranching = {
    {{}, {{0, 0.6}, {1, 0.4}}},
    {{0}, {{2, 0.5}, {0, 0.3}, {1, 0.2}}},
    {{1}, {{2, 0.9}, {0, 0.05}, {1, 0.05}}},
    {{0, 0}, {{2, 1.0}}},
    {{0, 1}, {{2, 1.0}}},
};

TEST(DecodeWindow, GreedyTakesTheLikeliestTokenEachStep) {
  ScriptedModel model(kBranching, 2);
  const std::vector<int64_t> prompt = {3, 6};  // <|startoftranscript|><|notimestamps|>
  auto result = DecodeWindow(model, TestVocabulary(), prompt, NoProcessors(1));
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->tokens, (std::vector<int64_t>{0}));
  // log 0.6 + log 0.5 (the other ids' exp(-30) change the sums by about 1e-12)
  EXPECT_NEAR(result->cumulative_logprob, std::log(0.6) + std::log(0.5), 1e-5);
  EXPECT_NEAR(result->avg_logprob, result->cumulative_logprob / 2, 1e-9);
}

TEST(DecodeWindow, BeamSearchKeepsTheBetterEndingAndStopsAtBeamsHypotheses) {
  ScriptedModel model(kBranching, 2);
  auto result = DecodeWindow(model, TestVocabulary(), {3, 6}, NoProcessors(2));
  ASSERT_TRUE(result.ok()) << result.status().message();
  // Step 2 ends both beams: [1] (0.4 x 0.9) and [0] (0.6 x 0.5); two hypotheses with 2
  // beams and patience 1 end the search; [1] scores -1.02 against -1.20.
  EXPECT_EQ(result->tokens, (std::vector<int64_t>{1}));
  EXPECT_NEAR(result->cumulative_logprob, std::log(0.4) + std::log(0.9), 1e-5);
  EXPECT_EQ(model.steps(), 1 + 2);  // <|startoftranscript|>, then two decoding steps
}

TEST(DecodeWindow, PatienceWaitsForMoreHypotheses) {
  ScriptedModel model(kBranching, 2);
  WindowDecodeOptions options = NoProcessors(2);
  options.patience = 2.0;  // four hypotheses: [0, 0] and [0, 1] end at step 3
  auto result = DecodeWindow(model, TestVocabulary(), {3, 6}, options);
  ASSERT_TRUE(result.ok()) << result.status().message();
  // Scores per token: [0, 0] (0.6 x 0.3 x 1) -0.86 beats [1] -1.02.
  EXPECT_EQ(result->tokens, (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(model.steps(), 1 + 3);
}

TEST(DecodeWindow, ThePromptIsFedBeforeTheStartTokenAndTheLengthIsBounded) {
  // <|startofprev|> 0 1 <|startoftranscript|> <|notimestamps|>: four tokens before the
  // start token; max_length 8 leaves min(8 / 2, 8 - 4) = 4 steps, the last token kept.
  std::map<std::vector<int64_t>, std::map<int64_t, double>> script;
  for (std::vector<int64_t> h; h.size() < 6; h.push_back(1)) script[h] = {{1, 0.9}, {2, 0.1}};
  ScriptedModel model(script, 5);
  WindowDecodeOptions options = NoProcessors(1);
  options.max_length = 8;
  auto result = DecodeWindow(model, TestVocabulary(), {4, 0, 1, 3, 6}, options);
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->tokens, (std::vector<int64_t>{1, 1, 1, 1}));
  EXPECT_EQ(model.fed()[0], (std::vector<int64_t>{4, 0, 1, 3, 6, 1, 1, 1}));
}

TEST(DecodeWindow, BeamsGetThePromptFedOnceToTheFirstRow) {
  std::map<std::vector<int64_t>, std::map<int64_t, double>> script;
  for (std::vector<int64_t> h; h.size() < 6; h.push_back(1)) script[h] = {{1, 0.6}, {0, 0.3}, {2, 0.1}};
  ScriptedModel model(script, 5);
  WindowDecodeOptions options = NoProcessors(2);
  options.max_length = 8;
  auto result = DecodeWindow(model, TestVocabulary(), {4, 0, 1, 3, 6}, options);
  ASSERT_TRUE(result.ok()) << result.status().message();
  // Four prompt steps of one row, then both rows from its history: every row was fed
  // the whole prompt at its positions.
  for (const auto& fed : model.fed()) {
    EXPECT_EQ(std::vector<int64_t>(fed.begin(), fed.begin() + 5), (std::vector<int64_t>{4, 0, 1, 3, 6}));
  }
  EXPECT_EQ(result->tokens, (std::vector<int64_t>{1, 1, 1, 1}));
}

TEST(DecodeWindow, APrefillFeedsThePromptInOneCall) {
  std::map<std::vector<int64_t>, std::map<int64_t, double>> script;
  for (std::vector<int64_t> h; h.size() < 6; h.push_back(1)) script[h] = {{1, 0.6}, {0, 0.3}, {2, 0.1}};
  ScriptedModel model(script, 5);
  model.can_prefill = true;
  WindowDecodeOptions options = NoProcessors(2);
  options.max_length = 8;
  // <|startoftranscript|> inside the prompt (a multilingual model's language token after
  // it): the no-speech probability is the prefill's, at its position.
  auto result = DecodeWindow(model, TestVocabulary(), {4, 0, 3, 1, 6}, options);
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(model.prefills, 1);
  for (const auto& fed : model.fed()) {
    EXPECT_EQ(std::vector<int64_t>(fed.begin(), fed.begin() + 5), (std::vector<int64_t>{4, 0, 3, 1, 6}));
  }
  EXPECT_NEAR(result->no_speech_prob, 1.0, 1e-6);
  EXPECT_EQ(result->tokens, (std::vector<int64_t>{1, 1, 1, 1}));
}

TEST(DecodeWindow, TimestampRulesAndTheNoSpeechProbabilityBeforeThem) {
  // Prompt <|startoftranscript|> alone: the first step's logits give the no-speech
  // probability (before any rule: <|nocaptions|> is suppressed later) and must start
  // with a timestamp; then text, a closing timestamp, the end.
  const std::map<std::vector<int64_t>, std::map<int64_t, double>> script = {
      {{}, {{5, 0.5}, {0, 0.3}, {8, 0.2}}},
      {{8}, {{0, 0.9}, {9, 0.1}}},
      {{8, 0}, {{0, 0.2}, {11, 0.8}}},
      {{8, 0, 11}, {{2, 0.9}, {0, 0.1}}},
  };
  ScriptedModel model(script, 1);
  WindowDecodeOptions options = NoProcessors(1);
  options.suppress_tokens = {5};
  auto result = DecodeWindow(model, TestVocabulary(), {3}, options);
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->tokens, (std::vector<int64_t>{8, 0, 11}));
  EXPECT_NEAR(result->no_speech_prob, 0.5, 1e-6);
}

TEST(DecodeWindow, SamplingGivesTheBestOfItsHypotheses) {
  ScriptedModel model(kBranching, 2);
  WindowDecodeOptions options = NoProcessors(1);
  options.temperature = 1.0;
  options.best_of = 4;
  options.seed = 7;
  auto result = DecodeWindow(model, TestVocabulary(), {3, 6}, options);
  ASSERT_TRUE(result.ok()) << result.status().message();
  // Whatever was drawn: a hypothesis with its log-probability, from four rows.
  EXPECT_FALSE(result->tokens.empty());
  EXPECT_LT(result->cumulative_logprob, 0.0);
  EXPECT_EQ(model.fed().size(), 4u);
}

TEST(DecodeWindow, RefusesAPromptWithoutStartOfTranscript) {
  ScriptedModel model(kBranching, 2);
  EXPECT_FALSE(DecodeWindow(model, TestVocabulary(), {6}, NoProcessors(1)).ok());
}

}  // namespace
}  // namespace pteforge
