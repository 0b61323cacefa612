// The cache model's C++ test on the Cortex-M55: the program embedded in the image, its
// Session over static memory (cc/embedded), the same checks as on Linux.
#include <cstdio>

#include "cc/embedded/embedded_program.h"
#include "tests/cache_model/cache_model_checks.h"

int main() {
  auto image = pteforge::OpenImageProgram();
  if (!image.ok()) {
    std::fprintf(stderr, "cache_model_image: error: %s\n", image.status().message().c_str());
    return 1;
  }
  pteforge::Status checked = pteforge::CheckCacheModel(*image->session);
  if (!checked.ok()) {
    std::fprintf(stderr, "cache_model_image: FAILED: %s\n", checked.message().c_str());
    return 1;
  }
  std::printf("cache_model_image: passed\n");
  return 0;
}
