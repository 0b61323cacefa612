// Shortlist: the engine's candidate rule on a small hand-made table, and clear errors
// for files that do not fit their header.
#include "cc/seq2seq/shortlist.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace pteforge {
namespace {

void Put(std::string& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

// first = 2; source 0 -> {7}, source 1 -> {}, source 2 -> {3, 9}.
std::string Table() {
  const std::vector<uint64_t> offsets = {0, 1, 1, 3};
  const std::vector<uint32_t> ids = {7, 3, 9};
  std::string bytes;
  for (uint64_t header : {uint64_t{1}, uint64_t{0}, uint64_t{2}, uint64_t{2}, uint64_t{offsets.size()},
                          uint64_t{ids.size()}}) {
    Put(bytes, header, 8);
  }
  for (uint64_t offset : offsets) Put(bytes, offset, 8);
  for (uint32_t id : ids) Put(bytes, id, 4);
  return bytes;
}

TEST(ShortlistTest, CandidatesAreFirstIdsAndListsPaddedWithTheSmallestUnusedIds) {
  auto shortlist = Shortlist::Parse(Table(), 12);
  ASSERT_TRUE(shortlist.ok()) << shortlist.status().message();
  EXPECT_EQ(shortlist->source_vocab_size(), 3);
  EXPECT_EQ(shortlist->Candidates({{0, 2}}, 1).value(), (std::vector<int64_t>{0, 1, 3, 7, 9}));
  EXPECT_EQ(shortlist->Candidates({{0, 2}}, 4).value(), (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 7, 9}));
  EXPECT_EQ(shortlist->Candidates({{1}}, 4).value(), (std::vector<int64_t>{0, 1, 2, 3}));
  // A batch's candidates are the union of its sentences'.
  EXPECT_EQ(shortlist->Candidates({{0}, {2}}, 1).value(), (std::vector<int64_t>{0, 1, 3, 7, 9}));
}

TEST(ShortlistTest, RefusesSourceIdsOutsideItsVocabulary) {
  auto shortlist = Shortlist::Parse(Table(), 12);
  auto candidates = shortlist->Candidates({{3}}, 1);
  ASSERT_FALSE(candidates.ok());
  EXPECT_NE(candidates.status().message().find("source id 3 is outside"), std::string::npos);
}

TEST(ShortlistTest, RefusesBadFiles) {
  const std::string table = Table();
  EXPECT_NE(Shortlist::Parse(table.substr(0, 20), 12).status().message().find("less than its 48-byte header"),
            std::string::npos);
  EXPECT_NE(Shortlist::Parse(table.substr(0, table.size() - 1), 12).status().message().find("does not fit"),
            std::string::npos);
  EXPECT_NE(Shortlist::Parse(table, 8).status().message().find("target id 9 is outside the vocabulary of 8"),
            std::string::npos);
  std::string decreasing = table;
  decreasing[48 + 8] = 5;  // offsets[1] = 5 > offsets[2] = 1
  EXPECT_NE(Shortlist::Parse(decreasing, 12).status().message().find("not increasing"), std::string::npos);
}

}  // namespace
}  // namespace pteforge
