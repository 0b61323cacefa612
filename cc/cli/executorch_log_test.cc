#include "cc/cli/executorch_log.h"

#include <gtest/gtest.h>

#include <executorch/runtime/platform/log.h>
#include <executorch/runtime/platform/runtime.h>

namespace pteforge {
namespace {

TEST(ExecutorchLog, OnlyErrorsByDefaultInOurFormat) {
  executorch::runtime::runtime_init();
  RouteExecutorchLog(false);
  testing::internal::CaptureStderr();
  ET_LOG(Info, "Reading file %s", "/sys/devices/soc0/image_version");
  ET_LOG(Error, "Backend %s is not registered.", "XnnpackBackend");
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(err.find("Reading file"), std::string::npos) << err;
  EXPECT_EQ(err.rfind("executorch: error: Backend XnnpackBackend is not registered. (", 0), 0u) << err;
}

TEST(ExecutorchLog, VerboseShowsEverything) {
  executorch::runtime::runtime_init();
  RouteExecutorchLog(true);
  testing::internal::CaptureStderr();
  ET_LOG(Info, "Reading file %s", "x");
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("I executorch:"), std::string::npos) << err;
  EXPECT_NE(err.find("] Reading file x"), std::string::npos) << err;
  RouteExecutorchLog(false);
}

}  // namespace
}  // namespace pteforge
