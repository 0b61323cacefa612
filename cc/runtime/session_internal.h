// Internal to the Session's implementation files (session.cc, session_io.cc,
// session_state.cc): the loaded methods and the ExecuTorch objects behind a Session.
#ifndef PTEFORGE_CC_RUNTIME_SESSION_INTERNAL_H_
#define PTEFORGE_CC_RUNTIME_SESSION_INTERNAL_H_

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <executorch/runtime/core/hierarchical_allocator.h>
#include <executorch/runtime/executor/memory_manager.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>

#include "cc/runtime/session.h"

namespace pteforge {
namespace internal {

using executorch::runtime::HierarchicalAllocator;
using executorch::runtime::MemoryManager;
using executorch::runtime::Method;
using executorch::runtime::Program;
using executorch::runtime::Span;
using executorch::runtime::Tag;

// "tensor", "int", ... for messages.
const char* TagName(Tag tag);
// "[4, 8]" for messages.
std::string ShapeText(const std::vector<int64_t>& sizes);

// One loaded method. Stable address: Method keeps pointers to the MemoryManager, which
// keeps pointers to the allocators.
struct LoadedMethod {
  std::string name;
  std::vector<Span<uint8_t>> planned_spans;  // into the Session's shared arenas
  std::unique_ptr<HierarchicalAllocator> planned;
  std::unique_ptr<MemoryManager> memory_manager;
  std::unique_ptr<Method> method;
  size_t work_bytes = 0;
  // Inputs the method writes in place; their final values are its last outputs.
  std::vector<size_t> written_inputs;
};

}  // namespace internal

struct Session::Impl {
  std::unique_ptr<executorch::runtime::DataLoader> loader;
  std::unique_ptr<SessionMemory> owned_memory;  // HeapMemory unless the caller gave one
  SessionMemory* memory = nullptr;
  std::unique_ptr<internal::Program> program;
  std::vector<internal::Span<uint8_t>> arenas;  // per planned buffer index, shared by all methods
  std::unordered_map<std::string, std::unique_ptr<internal::LoadedMethod>> methods;

  internal::LoadedMethod* Find(const std::string& name) const {
    auto it = methods.find(name);
    return it == methods.end() ? nullptr : it->second.get();
  }
  uint8_t* state() const { return arenas[kStateBufferIndex].data(); }
};

}  // namespace pteforge

#endif  // PTEFORGE_CC_RUNTIME_SESSION_INTERNAL_H_
