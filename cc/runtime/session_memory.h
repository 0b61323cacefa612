// SessionMemory: where a Session's memory comes from (TFLite Micro's split between an
// interpreter and its allocator). The Session decides what it needs (one state arena
// shared by all methods, one work arena of the largest method's size, the methods'
// runtime structures, kernels' scratch); a SessionMemory provides it:
//   - HeapMemory: from the heap, sized when the program is opened (hosted platforms);
//   - StaticMemory: from buffers the caller owns, sized at build time from the
//     program's report (microcontrollers; cc/embedded). A buffer that is too small is
//     an error saying which buffer, how much the program needs and what to change.
//
// Thread safety: used by one Session, under its lock.
#ifndef PTEFORGE_CC_RUNTIME_SESSION_MEMORY_H_
#define PTEFORGE_CC_RUNTIME_SESSION_MEMORY_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/core/span.h>

#include "cc/runtime/status.h"

namespace pteforge {

// Planned buffer indices as MethodMeta and HierarchicalAllocator number them (memory
// id - 1): ExecuTorch plans the shared mutable state in memory id 2
// (MemoryPlanningPass(share_mutable_buffers=True); python/pteforge/plan.py).
inline constexpr size_t kWorkBufferIndex = 0;
inline constexpr size_t kStateBufferIndex = 1;

// Arena alignment: ExecuTorch plans offsets for 16-byte alignment; a cache line is
// friendlier to the kernels.
inline constexpr size_t kArenaAlignment = 64;

class SessionMemory {
 public:
  virtual ~SessionMemory() = default;
  // Zeroed memory of `size` bytes (kArenaAlignment-aligned) for planned buffer `index`,
  // shared by every method; called once per index, before any method is loaded.
  virtual StatusOr<executorch::runtime::Span<uint8_t>> PlannedBuffer(size_t index, size_t size) = 0;
  // Holds the loaded methods' runtime structures for the Session's lifetime.
  virtual executorch::runtime::MemoryAllocator* MethodAllocator() = 0;
  // Kernels' scratch memory; the runtime resets it after each kernel.
  virtual executorch::runtime::MemoryAllocator* TempAllocator() = 0;
  // Bytes of the method allocator in use, if it keeps count (0 otherwise).
  virtual size_t MethodBytesUsed() const { return 0; }
  // Sets [data, data + size) of a planned buffer to zeros without touching its whole
  // pages: they go back to the system, taking no physical memory until touched again
  // (then zero-filled); the bytes of a partly covered page at either end are written.
  // Returns false, changing nothing, where memory cannot be given back (the default).
  virtual bool ZeroByReturningPages(uint8_t* data, size_t size) { return false; }
};

// Everything from the heap. Planned buffers come from calloc, not malloc + memset: a
// large block arrives zeroed from the kernel and takes physical memory only where a
// run touches it, so an arena planned for the largest inputs costs what the actual
// inputs use. On Linux (and Android) ZeroByReturningPages gives pages back (madvise
// MADV_DONTNEED, after which private anonymous pages read as zeros).
class HeapMemory : public SessionMemory {
 public:
  HeapMemory();
  ~HeapMemory() override;
  StatusOr<executorch::runtime::Span<uint8_t>> PlannedBuffer(size_t index, size_t size) override;
  executorch::runtime::MemoryAllocator* MethodAllocator() override;
  executorch::runtime::MemoryAllocator* TempAllocator() override;
  bool ZeroByReturningPages(uint8_t* data, size_t size) override;

 private:
  std::vector<void*> blocks_;  // what calloc returned, freed on destruction
  std::unique_ptr<executorch::runtime::MemoryAllocator> method_allocator_;
  std::unique_ptr<executorch::runtime::MemoryAllocator> temp_allocator_;
};

// Buffers owned by the caller (static arrays on a microcontroller), which must outlive
// the Session. Planned buffers must be zeroed (.bss is) and kArenaAlignment-aligned.
struct StaticBuffers {
  executorch::runtime::Span<uint8_t> work;     // planned buffer 0 (and any beyond 1)
  executorch::runtime::Span<uint8_t> state;    // planned buffer 1: the shared state
  executorch::runtime::Span<uint8_t> methods;  // the methods' runtime structures
  executorch::runtime::Span<uint8_t> temp;     // kernels' scratch (may be empty)
};

class StaticMemory : public SessionMemory {
 public:
  explicit StaticMemory(StaticBuffers buffers);
  StatusOr<executorch::runtime::Span<uint8_t>> PlannedBuffer(size_t index, size_t size) override;
  executorch::runtime::MemoryAllocator* MethodAllocator() override { return &method_allocator_; }
  executorch::runtime::MemoryAllocator* TempAllocator() override { return &temp_allocator_; }
  size_t MethodBytesUsed() const override { return method_allocator_.used_size(); }

 private:
  StaticBuffers buffers_;
  size_t work_used_ = 0;  // planned buffers other than the state share `work`, in turn
  executorch::runtime::MemoryAllocator method_allocator_;
  executorch::runtime::MemoryAllocator temp_allocator_;
};

}  // namespace pteforge

#endif  // PTEFORGE_CC_RUNTIME_SESSION_MEMORY_H_
