// ParseMetadata on the text python/pteforge/metadata.py writes: formats 1, 2 and 3, the
// names of flat inputs and outputs (which may hold spaces), and malformed lines.
#include "cc/runtime/metadata.h"

#include <gtest/gtest.h>

namespace pteforge {
namespace {

TEST(MetadataTest, Format3NamesFlatInputsAndOutputs) {
  auto metadata = ParseMetadata(
      "pteforge-metadata 3\n"
      "method w\n"
      "input w 2 float32 [1..4,3]\n"
      "writes w 2\n"
      "name w input 0 scale\n"
      "name w input 2 pair[1]\n"
      "name w output 1 [1]['a b']\n"
      "in_spec w [1, {\"type\": \"builtins.tuple\", \"context\": \"null\", \"children_spec\": []}]\n"
      "out_spec w [1, {\"type\": null, \"context\": null, \"children_spec\": []}]\n");
  ASSERT_TRUE(metadata.ok()) << metadata.status().message();
  EXPECT_EQ(metadata->WrittenInputs("w"), std::vector<size_t>{2});
  EXPECT_EQ(metadata->Name("w", /*output=*/false, 2), "pair[1]");
  EXPECT_EQ(metadata->Name("w", /*output=*/true, 1), "[1]['a b']");
  EXPECT_EQ(metadata->Name("w", /*output=*/true, 0), "");   // none given
  EXPECT_EQ(metadata->Name("w", /*output=*/false, 1), "");
  ASSERT_NE(metadata->FindInput("w", 2), nullptr);
  EXPECT_EQ(metadata->FindInput("w", 2)->max_sizes, (std::vector<int64_t>{4, 3}));
}

TEST(MetadataTest, OlderFormatsAreRead) {
  auto format2 = ParseMetadata("pteforge-metadata 2\nmethod get\nwrites get 0\n");
  ASSERT_TRUE(format2.ok()) << format2.status().message();
  EXPECT_EQ(format2->WrittenInputs("get"), std::vector<size_t>{0});
  EXPECT_TRUE(format2->names.empty());
  EXPECT_TRUE(ParseMetadata("pteforge-metadata 1\nmethod get\n").ok());
}

TEST(MetadataTest, MalformedTextIsRefused) {
  EXPECT_NE(ParseMetadata("pteforge-metadata 4\n").status().message().find("format 1, 2 or 3"), std::string::npos);
  for (const char* line : {"name w inout 0 x", "name w input x y", "name w input 0", "out_spec w", "in_spec"}) {
    auto metadata = ParseMetadata(std::string("pteforge-metadata 3\n") + line + "\n");
    ASSERT_FALSE(metadata.ok()) << line;
    EXPECT_NE(metadata.status().message().find("line 2 is malformed"), std::string::npos) << line;
  }
}

}  // namespace
}  // namespace pteforge
