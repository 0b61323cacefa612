#include "cc/embedded/embedded_program.h"

#include <cstdio>

#include <executorch/runtime/platform/clock.h>
#include <executorch/runtime/platform/runtime.h>

// Defined by heap.c where it is linked (bare metal); weak, so other targets link too.
extern "C" size_t pteforge_heap_peak(void) __attribute__((weak));
// Defined by the Cortex-M55 startup, which paints the stack at reset.
extern "C" size_t pteforge_stack_peak(void) __attribute__((weak));
extern "C" size_t pteforge_stack_size(void) __attribute__((weak));

namespace pteforge {

size_t HeapPeakBytes() { return pteforge_heap_peak != nullptr ? pteforge_heap_peak() : 0; }

std::string MemoryPeaks(size_t heap_bytes) {
  char text[128];
  if (pteforge_stack_peak != nullptr && pteforge_stack_size != nullptr) {
    std::snprintf(text, sizeof(text), "heap peak %zu of %zu B, stack peak %zu of %zu B", HeapPeakBytes(), heap_bytes,
                  pteforge_stack_peak(), pteforge_stack_size());
  } else {
    std::snprintf(text, sizeof(text), "heap peak %zu of %zu B", HeapPeakBytes(), heap_bytes);
  }
  return text;
}

double MillisecondsSince(et_timestamp_t start) {
  return static_cast<double>(executorch::runtime::ticks_to_ns(executorch::runtime::pal_current_ticks() - start)) / 1e6;
}

StatusOr<ImageSession> OpenImageProgram() {
  const EmbeddedProgram& embedded = ImageProgram();
  ImageSession image;
  image.memory = std::make_unique<StaticMemory>(embedded.buffers);
  SessionOptions options;
  options.memory = image.memory.get();
  executorch::runtime::runtime_init();  // starts the platform clock the timing reads
  et_timestamp_t start = executorch::runtime::pal_current_ticks();
  auto session = Session::OpenBuffer(embedded.data, embedded.size, options);
  if (!session.ok()) {
    return Failure(session.status().code(), "the embedded program '%s': %s", embedded.name,
                   session.status().message().c_str());
  }
  image.session = std::move(session.value());
  image.load_ms = MillisecondsSince(start);
  return image;
}

}  // namespace pteforge
