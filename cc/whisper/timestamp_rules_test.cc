#include "cc/whisper/timestamp_rules.h"

#include <cmath>
#include <vector>

#include "cc/whisper/test_vocabulary.h"
#include "gtest/gtest.h"

namespace pteforge {
namespace {

// Which ids the rules leave allowed, for logits `values` (all 0 by default).
std::vector<int> Allowed(const std::vector<int64_t>& generated, std::vector<float> values = {},
                         int64_t max_initial = 2) {
  if (values.empty()) values.assign(13, 0.0f);
  ApplyTimestampRules(TestVocabulary(), generated, max_initial, values.data());
  std::vector<int> allowed;
  for (int id = 0; id < 13; ++id) {
    if (!std::isinf(values[id])) allowed.push_back(id);
  }
  return allowed;
}

TEST(TimestampRules, FirstTokenIsAnEarlyTimestamp) {
  EXPECT_EQ(Allowed({}), (std::vector<int>{7, 8, 9}));  // up to max_initial_timestamp_index 2
}

TEST(TimestampRules, AfterAPairOnlyTextOrTheEnd) {
  // The first timestamp counts as a pair with itself: text must follow.
  EXPECT_EQ(Allowed({8}), (std::vector<int>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(Allowed({7, 0, 9, 9}), (std::vector<int>{0, 1, 2, 3, 4, 5}));
}

TEST(TimestampRules, AfterASegmentsEndALaterOrEqualStartOrTheEnd) {
  // Text, then 9: the segment ended at 9; the next starts at 9 or later, or the text
  // ends. (With equal logits the timestamps together outweigh any text token anyway.)
  EXPECT_EQ(Allowed({7, 0, 9}), (std::vector<int>{9, 10, 11, 12}));
  std::vector<float> text_likely(13, 0.0f);
  text_likely[3] = 10.0f;  // one token far more likely than the timestamps together
  EXPECT_EQ(Allowed({7, 0, 9}, text_likely), (std::vector<int>{2, 3, 4, 5, 9, 10, 11, 12}));
}

TEST(TimestampRules, AfterTextOnlyLaterTimestamps) {
  std::vector<float> text_likely(13, 0.0f);
  text_likely[0] = 10.0f;
  EXPECT_EQ(Allowed({8, 1}, text_likely), (std::vector<int>{0, 1, 2, 3, 4, 5, 9, 10, 11, 12}));
}

TEST(TimestampRules, TimestampsTogetherMoreLikelyThanAnyTextTokenForceATimestamp) {
  // Four allowed timestamps at 0 each: log(4) > 1.0, the best text token.
  std::vector<float> values(13, 0.0f);
  values[0] = 1.0f;
  EXPECT_EQ(Allowed({8, 1}, values), (std::vector<int>{9, 10, 11, 12}));
  values[0] = 1.5f;  // log(4) = 1.386 < 1.5: text stays allowed
  EXPECT_EQ(Allowed({8, 1}, values), (std::vector<int>{0, 1, 2, 3, 4, 5, 9, 10, 11, 12}));
}

TEST(TimestampRules, OtherProcessorsMinusInfinityCounts) {
  std::vector<float> values(13, 0.0f);
  values[0] = 1.0f;
  values[10] = values[11] = values[12] = -INFINITY;  // suppressed already: one timestamp left
  EXPECT_EQ(Allowed({8, 1}, values), (std::vector<int>{0, 1, 2, 3, 4, 5, 9}));
}

}  // namespace
}  // namespace pteforge
