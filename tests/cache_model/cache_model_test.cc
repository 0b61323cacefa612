// The cache model's C++ test on Linux (x86_64, and aarch64 under qemu):
//   cache_model_test --model=cache_model.pte
#include <cstdio>
#include <cstring>
#include <string>

#include "cc/cli/executorch_log.h"
#include "cc/runtime/session.h"
#include "tests/cache_model/cache_model_checks.h"

int main(int argc, char** argv) {
  const char* prefix = "--model=";
  if (argc != 2 || std::strncmp(argv[1], prefix, std::strlen(prefix)) != 0) {
    std::fprintf(stderr, "usage: %s --model=cache_model.pte\n", argv[0]);
    return 2;
  }
  pteforge::RouteExecutorchLog(/*verbose=*/false);
  auto session = pteforge::Session::Open(argv[1] + std::strlen(prefix));
  if (!session.ok()) {
    std::fprintf(stderr, "cache_model_test: error: %s\n", session.status().message().c_str());
    return 1;
  }
  pteforge::Status checked = pteforge::CheckCacheModel(*session.value());
  if (!checked.ok()) {
    std::fprintf(stderr, "cache_model_test: FAILED: %s\n", checked.message().c_str());
    return 1;
  }
  std::printf("cache_model_test: passed\n");
  return 0;
}
