#include "cc/cli/calls.h"

#include <gtest/gtest.h>

#include "cc/cli/format.h"

namespace pteforge {
namespace {

TEST(CallsTest, ParsesTensorMakersShapesAndDtypes) {
  auto call = ParseCall("set(zeros[2,3], ones[2]:int64, arange[2,2], full(2.5)[1], values(1,2,3)[3]:int32)");
  ASSERT_TRUE(call.ok()) << call.status().message();
  EXPECT_EQ(call->method, "set");
  ASSERT_EQ(call->args.size(), 5u);
  EXPECT_EQ(FormatValue(call->args[0], 64), "float32[2, 3] = [[0, 0, 0], [0, 0, 0]]");
  EXPECT_EQ(FormatValue(call->args[1], 64), "int64[2] = [1, 1]");
  EXPECT_EQ(FormatValue(call->args[2], 64), "float32[2, 2] = [[0, 1], [2, 3]]");
  EXPECT_EQ(FormatValue(call->args[3], 64), "float32[1] = [2.5]");
  EXPECT_EQ(FormatValue(call->args[4], 64), "int32[3] = [1, 2, 3]");
}

TEST(CallsTest, ParsesScalarsAndEmptyCalls) {
  auto call = ParseCall("  step( 3, -0.5, true, zeros[]) ");
  ASSERT_TRUE(call.ok()) << call.status().message();
  EXPECT_EQ(std::get<int64_t>(call->args[0]), 3);
  EXPECT_EQ(std::get<double>(call->args[1]), -0.5);
  EXPECT_EQ(std::get<bool>(call->args[2]), true);
  EXPECT_EQ(FormatValue(call->args[3], 64), "float32[] = 0");
  EXPECT_TRUE(ParseCall("reset_state()").ok());
}

TEST(CallsTest, ErrorsPointAtTheProblem) {
  struct Case {
    const char* text;
    const char* message;
  };
  for (const Case& c : std::vector<Case>{
           {"get_cache", "column 10: expected '(' after the method name"},
           {"get(zeros)", "expected a shape like [4,8] after zeros"},
           {"get(zeros[4,8]:float33)", "unknown dtype 'float33'"},
           {"get(values(1,2)[3])", "values(...) has 2 numbers but the shape holds 3"},
           {"get(randn[3])", "unknown value 'randn'"},
           {"get(zeros[4,8]", "expected ',' or ')'"},
           {"get(zeros[-1])", "expected a non-negative integer size"},
           {"get(zeros[100000,100000])", "tensor literal too large"},
           {"get() extra", "unexpected text after the call"},
       }) {
    auto call = ParseCall(c.text);
    ASSERT_FALSE(call.ok()) << c.text;
    EXPECT_NE(call.status().message().find(c.message), std::string::npos) << call.status().message();
  }
}

TEST(CallsTest, FilesSkipCommentsAndNameBadLines) {
  auto calls = ParseCallsFile("# setup\nset(ones[1])\n\n  get(zeros[4])  \n");
  ASSERT_TRUE(calls.ok());
  ASSERT_EQ(calls->size(), 2u);
  EXPECT_EQ(calls->at(1).method, "get");
  auto bad = ParseCallsFile("set(ones[1])\nget(\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message().rfind("line 2: ", 0), 0u) << bad.status().message();
}

TEST(FormatTest, LongTensorsAreElided) {
  auto call = ParseCall("f(arange[100])");
  ASSERT_TRUE(call.ok());
  EXPECT_EQ(FormatValue(call->args[0], 3), "float32[100] = [0, 1, 2, ...]");
}

}  // namespace
}  // namespace pteforge
