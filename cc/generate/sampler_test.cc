// The sampler against transformers' rules (repetition penalty, temperature, top-k with
// ties, top-p's boundary) and its reproducibility. The end-to-end checks (greedy equal to
// Python, sampling equal between x86_64 and aarch64) are in tests/llm.
#include "cc/generate/sampler.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace pteforge {
namespace {

SamplingOptions Sampling(double temperature = 1.0, int64_t top_k = 0, double top_p = 1.0) {
  SamplingOptions options;
  options.do_sample = true;
  options.temperature = temperature;
  options.top_k = top_k;
  options.top_p = top_p;
  return options;
}

// How often each token is drawn from `logits` in `draws` draws.
std::map<int64_t, int> Counts(const SamplingOptions& options, const std::vector<float>& logits, int draws,
                              uint64_t seed = 7) {
  Sampler sampler(options, seed);
  std::map<int64_t, int> counts;
  for (int i = 0; i < draws; ++i) {
    std::vector<float> copy = logits;
    ++counts[sampler.Next(&copy, {})];
  }
  return counts;
}

TEST(SamplerTest, GreedyIsTheFirstLargest) {
  Sampler sampler(SamplingOptions(), 0);
  std::vector<float> logits = {0.5f, 2.0f, -1.0f, 2.0f};
  EXPECT_EQ(sampler.Next(&logits, {}), 1);
}

// Greedy's vectorized search against std::max_element: every length around the lane
// counts, the largest at every kind of place, ties in other lanes, -inf, and NaN.
TEST(SamplerTest, GreedyEqualsMaxElementOnEveryLengthAndWithTiesAndNan) {
  std::mt19937 random(3);
  std::uniform_real_distribution<float> uniform(-10.0f, 10.0f);
  Sampler sampler(SamplingOptions(), 0);
  for (int length = 1; length <= 70; ++length) {
    for (int trial = 0; trial < 30; ++trial) {
      std::vector<float> logits(length);
      for (float& x : logits) x = uniform(random);
      if (trial % 3 == 1) logits[random() % length] = logits[random() % length];  // a tie, maybe with the top
      if (trial % 5 == 2) logits[random() % length] = -std::numeric_limits<float>::infinity();
      if (trial % 7 == 3) logits[random() % length] = std::numeric_limits<float>::quiet_NaN();
      if (trial == 29) std::fill(logits.begin(), logits.end(), 1.5f);
      const int64_t expected = std::max_element(logits.begin(), logits.end()) - logits.begin();
      std::vector<float> copy = logits;
      EXPECT_EQ(sampler.Next(&copy, {}), expected) << "length " << length << ", trial " << trial;
    }
  }
  std::vector<float> vocabulary(49152, -3.0f);
  vocabulary[40000] = 7.0f;
  vocabulary[45000] = 7.0f;
  EXPECT_EQ(sampler.Next(&vocabulary, {}), 40000);
}

TEST(SamplerTest, RepetitionPenaltyDividesPositiveAndMultipliesNegativeScoresOnce) {
  SamplingOptions options;
  options.repetition_penalty = 2.0;
  Sampler sampler(options, 0);
  std::vector<float> logits = {3.0f, 2.0f, -1.0f, 0.5f};
  // Token 0 seen twice is divided once: 1.5; token 2 becomes -2.
  EXPECT_EQ(sampler.Next(&logits, {0, 0, 2}), 1);
  EXPECT_EQ(logits, (std::vector<float>{1.5f, 2.0f, -2.0f, 0.5f}));
}

TEST(SamplerTest, TheSameSeedDrawsTheSameTokens) {
  const std::vector<float> logits = {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.0f, -0.3f, 0.25f};
  auto draws = [&](uint64_t seed) {
    Sampler sampler(Sampling(), seed);
    std::vector<int64_t> tokens;
    for (int i = 0; i < 200; ++i) {
      std::vector<float> copy = logits;
      tokens.push_back(sampler.Next(&copy, {}));
    }
    return tokens;
  };
  EXPECT_EQ(draws(42), draws(42));
  EXPECT_NE(draws(42), draws(43));
}

TEST(SamplerTest, DrawsFollowTheSoftmaxOfScoresOverTemperature) {
  const std::vector<float> logits = {1.0f, 2.0f, 0.0f, 1.5f};
  const double temperature = 0.7;
  const int draws = 40000;
  auto counts = Counts(Sampling(temperature), logits, draws);
  double total = 0;
  for (float l : logits) total += std::exp(l / temperature);
  for (size_t id = 0; id < logits.size(); ++id) {
    const double expected = std::exp(logits[id] / temperature) / total;
    // Five standard deviations of a binomial count.
    const double sigma = std::sqrt(draws * expected * (1 - expected));
    EXPECT_NEAR(counts[id], draws * expected, 5 * sigma) << "token " << id;
  }
}

TEST(SamplerTest, TopKKeepsTheKMostLikelyAndTiesWithTheKth) {
  auto counts = Counts(Sampling(1.0, 2), {0.0f, 3.0f, 1.0f, 2.0f, 2.0f}, 3000);
  EXPECT_EQ(counts.count(0) + counts.count(2), 0u);
  EXPECT_GT(counts[1], 0);
  EXPECT_GT(counts[3], 0);
  EXPECT_GT(counts[4], 0);  // as likely as the second: kept, as transformers keeps it
}

TEST(SamplerTest, TopPKeepsTokensUntilTheMoreLikelyOnesReachP) {
  // Probabilities 0.5, 0.3, 0.2 (ids 2, 0, 1).
  const std::vector<float> logits = {std::log(0.3f), std::log(0.2f), std::log(0.5f)};
  auto counts = Counts(Sampling(1.0, 0, 0.6), logits, 3000);
  EXPECT_EQ(counts.count(1), 0u);  // 0.5 + 0.3 >= 0.6 before it
  EXPECT_GT(counts[0], 0);
  EXPECT_GT(counts[2], 0);
  // At exactly 0.5 the first token reaches p alone: transformers drops the rest
  // (cumulative probability <= 1 - p).
  counts = Counts(Sampling(1.0, 0, 0.5), logits, 1000);
  EXPECT_EQ(counts.size(), 1u);
  EXPECT_EQ(counts[2], 1000);
}

TEST(SamplerTest, OptionsOutOfRangeAreRefused) {
  EXPECT_FALSE(CheckSamplingOptions(Sampling(0.0)).ok());
  EXPECT_FALSE(CheckSamplingOptions(Sampling(1.0, -1)).ok());
  EXPECT_FALSE(CheckSamplingOptions(Sampling(1.0, 0, 1.5)).ok());
  EXPECT_FALSE(CheckSamplingOptions(Sampling(1.0, 0, 0.0)).ok());
  EXPECT_TRUE(CheckSamplingOptions(Sampling(0.8, 40, 0.95)).ok());
}

}  // namespace
}  // namespace pteforge
