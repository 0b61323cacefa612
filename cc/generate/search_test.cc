// Greedy search over a scripted model: a model that can leave rows out (KeepRows) is
// stepped with the unfinished sentences only, and gives the same sequences as one that
// steps every row to the end of the batch; generate()'s logits processors.
#include "cc/generate/search.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace pteforge {
namespace {

constexpr int64_t kEos = 0;
constexpr int64_t kVocab = 10;

// Sentence s says its script, then </s>; row r's scores put all weight on its next
// token. Records how many rows each step advanced.
class ScriptedModel : public Seq2SeqModel {
 public:
  ScriptedModel(std::vector<std::vector<int64_t>> scripts, bool can_keep_rows)
      : scripts_(std::move(scripts)), can_keep_rows_(can_keep_rows) {}

  Status Encode(const std::vector<std::vector<int64_t>>& sources, int /*beams*/) override {
    rows_.clear();
    for (size_t row = 0; row < sources.size(); ++row) rows_.push_back(static_cast<int64_t>(row));
    return Status();
  }

  StatusOr<StepScores> Step(const std::vector<int64_t>& tokens, int64_t length) override {
    EXPECT_EQ(tokens.size(), rows_.size());
    steps_.push_back(tokens.size());
    StepScores scores;
    scores.width = kVocab;
    scores.values.assign(tokens.size() * kVocab, -1.0f);
    for (size_t i = 0; i < tokens.size(); ++i) {
      const std::vector<int64_t>& script = scripts_[rows_[i]];
      const size_t next = static_cast<size_t>(length - 1);
      scores.values[i * kVocab + (next < script.size() ? script[next] : kEos)] = 1.0f;
    }
    return scores;
  }

  Status Reorder(const std::vector<int64_t>& /*rows*/) override { return Status(); }
  bool CanKeepRows() const override { return can_keep_rows_; }
  Status KeepRows(const std::vector<int64_t>& rows) override {
    rows_ = rows;
    return Status();
  }
  int64_t vocab_size() const override { return kVocab; }

  const std::vector<size_t>& steps() const { return steps_; }

 private:
  std::vector<std::vector<int64_t>> scripts_;
  bool can_keep_rows_;
  std::vector<int64_t> rows_;
  std::vector<size_t> steps_;
};

SearchOptions Greedy() {
  SearchOptions options;
  options.max_length = 16;
  options.forced_eos = false;
  options.eos_token = kEos;
  options.pad_token = kEos;
  options.start_token = kEos;
  return options;
}

const std::vector<std::vector<int64_t>> kScripts = {{3, 4, 5, 6}, {7}, {8, 9}};
const std::vector<std::vector<int64_t>> kSources = {{1}, {1}, {1}};

TEST(GreedySearch, StepsOnlyTheUnfinishedRowsOfAModelThatCanLeaveRowsOut) {
  ScriptedModel model(kScripts, /*can_keep_rows=*/true);
  auto result = Search(model, kSources, Greedy());
  ASSERT_TRUE(result.ok()) << result.status().message();
  // Sentence 1 ends after 2 steps, sentence 2 after 3, sentence 0 after 5.
  EXPECT_EQ(model.steps(), (std::vector<size_t>{3, 3, 2, 1, 1}));
  // pad == </s>, as in Bergamot: the sequences end without it.
  EXPECT_EQ(result.value(), (std::vector<std::vector<int64_t>>{{3, 4, 5, 6}, {7}, {8, 9}}));
}

TEST(GreedySearch, GivesTheSameSequencesWhenEveryRowIsStepped) {
  ScriptedModel keeping(kScripts, true), all(kScripts, false);
  auto kept = Search(keeping, kSources, Greedy());
  auto stepped = Search(all, kSources, Greedy());
  ASSERT_TRUE(kept.ok() && stepped.ok());
  EXPECT_EQ(all.steps(), (std::vector<size_t>{3, 3, 3, 3, 3}));
  EXPECT_EQ(kept.value(), stepped.value());
}

// generate()'s processors for programs that leave them to the search (pteforge.seq2seq):
// the step scores prefer token 3 everywhere, then 2, 1, 0 (</s>), 4, 5, ...
class PreferringModel : public Seq2SeqModel {
 public:
  Status Encode(const std::vector<std::vector<int64_t>>& /*sources*/, int /*beams*/) override { return Status(); }
  StatusOr<StepScores> Step(const std::vector<int64_t>& tokens, int64_t /*length*/) override {
    StepScores scores;
    scores.width = kVocab;
    for (size_t row = 0; row < tokens.size(); ++row) {
      for (int64_t v = 0; v < kVocab; ++v) {
        scores.values.push_back(v == 3 ? -0.1f : v == 2 ? -1.0f : v == 1 ? -1.5f : -2.0f - v);
      }
    }
    return scores;
  }
  Status Reorder(const std::vector<int64_t>& /*rows*/) override { return Status(); }
  int64_t vocab_size() const override { return kVocab; }
};

TEST(GreedySearch, AppliesForcedBosBadAndSuppressedTokens) {
  PreferringModel model;
  SearchOptions options = Greedy();
  options.max_length = 5;
  options.pad_token = 9;  // not </s>: the sequence ends with </s> included
  options.forced_eos = true;
  options.forced_bos_token = 7;  // the first token
  options.bad_tokens = {3};      // never 3: 2 instead
  options.begin_suppress_tokens = {2};  // not 2 right after the forced BOS token: 1 there
  auto result = Search(model, {{1}}, options);
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result.value(), (std::vector<std::vector<int64_t>>{{7, 1, 2, kEos}}));
}

TEST(GreedySearch, KeepsAGeneratedPadTokenThatIsNotEos) {
  PreferringModel model;
  SearchOptions options = Greedy();
  options.max_length = 3;
  options.pad_token = 3;  // generated like any token (T5's pad is its start token, 0)
  auto result = Search(model, {{1}}, options);
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result.value(), (std::vector<std::vector<int64_t>>{{3, 3}}));
}

// A decoder prompt (Whisper's language and task tokens) is fed before the search, at its
// positions, and is not part of the result; greedy and beam search agree on a model
// whose scores do not depend on the history.
class PromptRecordingModel : public PreferringModel {
 public:
  StatusOr<StepScores> Step(const std::vector<int64_t>& tokens, int64_t length) override {
    fed.push_back({tokens.front(), length});
    return PreferringModel::Step(tokens, length);
  }
  std::vector<std::pair<int64_t, int64_t>> fed;  // (first row's token, length) per step
};

TEST(Search, FeedsTheDecoderPromptFirst) {
  for (int beams : {1, 2}) {
    PromptRecordingModel model;
    SearchOptions options = Greedy();
    options.beams = beams;
    options.max_length = 6;
    options.pad_token = 9;
    options.forced_eos = true;
    options.start_token = 5;
    options.prompt_tokens = {7, 8};
    options.begin_suppress_tokens = {3};  // right after the prompt: 2 there
    auto result = Search(model, {{1}}, options);
    ASSERT_TRUE(result.ok()) << result.status().message();
    EXPECT_EQ(result.value(), (std::vector<std::vector<int64_t>>{{2, 3, kEos}})) << beams << " beam(s)";
    ASSERT_GE(model.fed.size(), 3u);
    EXPECT_EQ(model.fed[0], (std::pair<int64_t, int64_t>{5, 1}));
    EXPECT_EQ(model.fed[1], (std::pair<int64_t, int64_t>{7, 2}));
    EXPECT_EQ(model.fed[2], (std::pair<int64_t, int64_t>{8, 3}));
  }
}

}  // namespace
}  // namespace pteforge
