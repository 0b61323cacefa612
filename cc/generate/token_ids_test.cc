// Token ids as text: parsed from prompts and id files, formatted for output.
#include "cc/generate/token_ids.h"

#include <vector>

#include <gtest/gtest.h>

namespace pteforge {
namespace {

TEST(TokenIdsTest, ParsesAndFormats) {
  auto ids = ParseTokenIds(" 1 450\t4996\n7 ");
  ASSERT_TRUE(ids.ok());
  EXPECT_EQ(ids.value(), (std::vector<int64_t>{1, 450, 4996, 7}));
  EXPECT_EQ(FormatTokenIds(ids.value()), "1 450 4996 7");
  for (const char* bad : {"1 two 3", "-4", "5x", "99999999999999999999"}) {
    auto parsed = ParseTokenIds(bad);
    EXPECT_FALSE(parsed.ok()) << bad;
  }
}

}  // namespace
}  // namespace pteforge
