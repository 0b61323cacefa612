// ParseReplay's tolerance line, plain and scaled (python/pteforge/replay.py writes
// both), and CompareValue applying it: a scaled atol counts in units of the largest
// magnitude of eager's value.
#include "cc/replay/replay.h"

#include <gtest/gtest.h>

#include <limits>

namespace pteforge {
namespace {

Value Floats(const std::vector<float>& values) {
  return HostTensor::FromValues(ScalarType::Float, {static_cast<int64_t>(values.size())}, values);
}

TEST(ReplayTest, ToleranceLinePlainAndScaled) {
  auto plain = ParseReplay("pteforge-replay 1\nprogram p\ntolerance 0.0001 1e-05\n");
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  EXPECT_DOUBLE_EQ(plain->tolerance.atol, 1e-4);
  EXPECT_DOUBLE_EQ(plain->tolerance.rtol, 1e-5);
  EXPECT_FALSE(plain->tolerance.scaled);
  auto scaled = ParseReplay("pteforge-replay 1\nprogram p\ntolerance 0.0001 1e-05 scaled\n");
  ASSERT_TRUE(scaled.ok()) << scaled.status().message();
  EXPECT_TRUE(scaled->tolerance.scaled);
  auto wrong = ParseReplay("pteforge-replay 1\nprogram p\ntolerance 0.0001 1e-05 loose\n");
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("line 3: expected 'tolerance <atol> <rtol>'"), std::string::npos);
}

TEST(ReplayTest, ScaledToleranceFollowsTheValuesMagnitude) {
  double worst = 0;
  // Logits around 30 that differ by 1e-3: beyond atol 1e-4, within 1e-4 x 30.
  EXPECT_FALSE(CompareValue(Floats({30, -2}), Floats({30.001f, -2}), Tolerance{1e-4, 0, false}, &worst).ok());
  EXPECT_TRUE(CompareValue(Floats({30, -2}), Floats({30.001f, -2}), Tolerance{1e-4, 0, true}, &worst).ok());
  EXPECT_NEAR(worst, 1e-3, 1e-5);
  // Values below 1 keep the plain atol, and so do values with an infinity (as Python's).
  EXPECT_FALSE(CompareValue(Floats({0.5f}), Floats({0.501f}), Tolerance{1e-4, 0, true}, &worst).ok());
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_FALSE(CompareValue(Floats({30, inf}), Floats({30.001f, inf}), Tolerance{1e-4, 0, true}, &worst).ok());
  // Scalars too.
  EXPECT_TRUE(CompareValue(Value(30.0), Value(30.001), Tolerance{1e-4, 0, true}, &worst).ok());
  EXPECT_FALSE(CompareValue(Value(30.0), Value(30.001), Tolerance{1e-4, 0, false}, &worst).ok());
}

}  // namespace
}  // namespace pteforge
