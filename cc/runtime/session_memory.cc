#include "cc/runtime/session_memory.h"

#include <cstdlib>
#include <cstring>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

#include <executorch/extension/memory_allocator/malloc_memory_allocator.h>

namespace pteforge {

using executorch::extension::MallocMemoryAllocator;
using executorch::runtime::MemoryAllocator;
using executorch::runtime::Span;

namespace {

uint8_t* Align(uint8_t* pointer) {
  size_t misalignment = reinterpret_cast<uintptr_t>(pointer) % kArenaAlignment;
  return misalignment == 0 ? pointer : pointer + (kArenaAlignment - misalignment);
}

}  // namespace

HeapMemory::HeapMemory()
    : method_allocator_(new MallocMemoryAllocator()), temp_allocator_(new MallocMemoryAllocator()) {}

HeapMemory::~HeapMemory() {
  for (void* block : blocks_) std::free(block);
}

StatusOr<Span<uint8_t>> HeapMemory::PlannedBuffer(size_t index, size_t size) {
  if (size == 0) return Span<uint8_t>();
  void* block = std::calloc(size + kArenaAlignment, 1);
  if (block == nullptr) {
    return Failure(Error::MemoryAllocationFailed, "cannot allocate %zu bytes for planned buffer %zu", size, index);
  }
  blocks_.push_back(block);
  return Span<uint8_t>(Align(static_cast<uint8_t*>(block)), size);
}

bool HeapMemory::ZeroByReturningPages(uint8_t* data, size_t size) {
#if defined(__linux__)
  if (size == 0) return true;
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t start = reinterpret_cast<uintptr_t>(data);
  const uintptr_t begin = (start + page - 1) / page * page;
  const uintptr_t end = (start + size) / page * page;
  if (end <= begin) {
    std::memset(data, 0, size);
    return true;
  }
  // Only whole pages inside the block: calloc's own bookkeeping lies outside it.
  if (madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED) != 0) return false;
  std::memset(data, 0, begin - start);
  std::memset(reinterpret_cast<uint8_t*>(end), 0, start + size - end);
  return true;
#else
  (void)data;
  (void)size;
  return false;
#endif
}

MemoryAllocator* HeapMemory::MethodAllocator() { return method_allocator_.get(); }
MemoryAllocator* HeapMemory::TempAllocator() { return temp_allocator_.get(); }

StaticMemory::StaticMemory(StaticBuffers buffers)
    : buffers_(buffers),
      method_allocator_(static_cast<uint32_t>(buffers.methods.size()), buffers.methods.data()),
      temp_allocator_(static_cast<uint32_t>(buffers.temp.size()), buffers.temp.data()) {}

StatusOr<Span<uint8_t>> StaticMemory::PlannedBuffer(size_t index, size_t size) {
  if (size == 0) return Span<uint8_t>();
  if (index == kStateBufferIndex) {
    if (size > buffers_.state.size()) {
      return Failure(Error::MemoryAllocationFailed,
                     "the program's state needs %zu bytes; the state arena has %zu. Size it from "
                     "this program's report (memory.state_arena_bytes)",
                     size, buffers_.state.size());
    }
    if (Align(buffers_.state.data()) != buffers_.state.data()) {
      return Failure(Error::InvalidArgument, "the state arena is not %zu-byte aligned", kArenaAlignment);
    }
    return Span<uint8_t>(buffers_.state.data(), size);
  }
  uint8_t* start = Align(buffers_.work.data() + work_used_);
  size_t offset = static_cast<size_t>(start - buffers_.work.data());
  if (offset > buffers_.work.size() || size > buffers_.work.size() - offset) {
    return Failure(Error::MemoryAllocationFailed,
                   "the program's work memory needs %zu bytes at offset %zu; the work arena has %zu. "
                   "Size it from this program's report (memory.work_arena_bytes_shared)",
                   size, offset, buffers_.work.size());
  }
  work_used_ = offset + size;
  return Span<uint8_t>(start, size);
}

}  // namespace pteforge
