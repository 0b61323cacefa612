#include "cc/cli/executorch_log.h"

#include <cstdio>

#include <executorch/runtime/platform/platform.h>

namespace pteforge {
namespace {

bool verbose_log = false;

void Emit(et_timestamp_t /*timestamp*/, et_pal_log_level_t level, const char* filename, const char* /*function*/,
          size_t line, const char* message, size_t length) {
  int size = static_cast<int>(length);
  if (verbose_log) {
    std::fprintf(stderr, "%c executorch:%s:%zu] %.*s\n", static_cast<char>(level), filename, line, size, message);
    return;
  }
  if (level != et_pal_log_level_t::kError && level != et_pal_log_level_t::kFatal) return;
  std::fprintf(stderr, "executorch: error: %.*s (%s:%zu)\n", size, message, filename, line);
}

}  // namespace

void RouteExecutorchLog(bool verbose) {
  verbose_log = verbose;
  executorch::runtime::register_pal(executorch::runtime::PalImpl::create(&Emit, __FILE__));
}

}  // namespace pteforge
