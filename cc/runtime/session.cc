// The Session's loading: the program file or buffer checked and loaded, every method
// loaded over the shared arenas, the metadata read, the state initialized and located.
// Calls and their values are in session_io.cc, state access in session_state.cc.
#include "cc/runtime/session.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>

#include <executorch/extension/data_loader/buffer_data_loader.h>
#include <executorch/runtime/backend/backend_options_map.h>
#include <executorch/runtime/backend/options.h>
#include <executorch/runtime/platform/runtime.h>

#include "cc/runtime/checks/program_check.h"
#include "cc/runtime/session_internal.h"

namespace pteforge {
namespace internal {

const char* TagName(Tag tag) {
  switch (tag) {
    case Tag::Tensor: return "tensor";
    case Tag::Int: return "int";
    case Tag::Double: return "float";
    case Tag::Bool: return "bool";
    case Tag::String: return "string";
    case Tag::None: return "none";
    default: return "unsupported value";
  }
}

std::string ShapeText(const std::vector<int64_t>& sizes) {
  std::string text = "[";
  for (size_t i = 0; i < sizes.size(); ++i) text += (i ? ", " : "") + std::to_string(sizes[i]);
  return text + "]";
}

}  // namespace internal

using executorch::extension::BufferDataLoader;
using internal::HierarchicalAllocator;
using internal::LoadedMethod;
using internal::MemoryManager;
using internal::Method;
using internal::Program;
using internal::Span;

Session::Session() : impl_(new Impl) {}
Session::~Session() = default;

StatusOr<std::unique_ptr<Session>> Session::Open(const std::string& path, SessionOptions options) {
  executorch::runtime::runtime_init();
  auto file = OpenProgramFile(path);
  if (!file.ok()) return file.status();
  std::unique_ptr<Session> session(new Session());
  session->impl_->loader = std::move(file->loader);
  Status status = session->Load("'" + path + "'", file->size, options);
  if (!status.ok()) return status;
  return session;
}

StatusOr<std::unique_ptr<Session>> Session::OpenBuffer(const void* data, size_t size, SessionOptions options) {
  executorch::runtime::runtime_init();
  std::unique_ptr<Session> session(new Session());
  if (size == 0) return Failure(Error::InvalidProgram, "the program buffer is empty, not an ExecuTorch program");
  session->impl_->loader = std::make_unique<BufferDataLoader>(data, size);
  Status status = session->Load("the program buffer", size, options);
  if (!status.ok()) return status;
  return session;
}

Status Session::Load(const std::string& what, size_t size, SessionOptions options) {
  // The runtime verifies the flatbuffer but trusts what is in it: check that first.
  {
    auto bytes = impl_->loader->load(0, size, executorch::runtime::DataLoader::SegmentInfo(
                                                  executorch::runtime::DataLoader::SegmentInfo::Type::Program));
    if (!bytes.ok()) return Failure(bytes.error(), "cannot read %s", what.c_str());
    Status checked = CheckProgram(static_cast<const uint8_t*>(bytes->data()), size);
    bytes->Free();
    if (!checked.ok()) {
      return Failure(checked.code(), "%s is not a valid ExecuTorch program: %s", what.c_str(),
                     checked.message().c_str());
    }
  }
  // Full verification: a truncated or corrupted file must fail here, not crash later.
  auto program = Program::load(impl_->loader.get(), Program::Verification::InternalConsistency);
  if (!program.ok()) {
    return Failure(program.error(),
                   "%s is not a valid ExecuTorch program: it is truncated, corrupted, or not a "
                   ".pte file (%zu bytes)",
                   what.c_str(), size);
  }
  impl_->program = std::make_unique<Program>(std::move(program.get()));
  Program& prog = *impl_->program;

  // Every method's planned buffers; the shared arenas take the largest of each id.
  std::vector<size_t> arena_sizes;
  for (size_t i = 0; i < prog.num_methods(); ++i) {
    auto name = prog.get_method_name(i);
    if (!name.ok()) return Failure(name.error(), "cannot read the name of method %zu", i);
    auto meta = prog.method_meta(name.get());
    if (!meta.ok()) return Failure(meta.error(), "cannot read method '%s'", name.get());
    auto loaded = std::make_unique<LoadedMethod>();
    loaded->name = name.get();
    size_t count = meta->num_memory_planned_buffers();
    if (arena_sizes.size() < count) arena_sizes.resize(count, 0);
    for (size_t id = 0; id < count; ++id) {
      auto size = meta->memory_planned_buffer_size(id);
      if (!size.ok() || size.get() < 0) {
        return Failure(Error::InvalidProgram, "method '%s' has an invalid planned buffer %zu", name.get(), id);
      }
      arena_sizes[id] = std::max(arena_sizes[id], static_cast<size_t>(size.get()));
      if (id != kStateBufferIndex) loaded->work_bytes += size.get();
    }
    all_methods_.push_back(loaded->name);
    impl_->methods.emplace(loaded->name, std::move(loaded));
  }
  std::sort(all_methods_.begin(), all_methods_.end());
  size_t planned = 0;
  for (size_t size : arena_sizes) planned += size;
  if (planned > options.max_planned_bytes) {
    return Failure(Error::MemoryAllocationFailed,
                   "%s needs %zu bytes of planned memory, more than the limit of %zu "
                   "(SessionOptions::max_planned_bytes)",
                   what.c_str(), planned, options.max_planned_bytes);
  }
  if (options.memory == nullptr) {
    impl_->owned_memory = std::make_unique<HeapMemory>();
    options.memory = impl_->owned_memory.get();
  }
  impl_->memory = options.memory;
  for (size_t id = 0; id < arena_sizes.size(); ++id) {
    auto arena = impl_->memory->PlannedBuffer(id, arena_sizes[id]);
    if (!arena.ok()) return arena.status();
    impl_->arenas.push_back(arena.value());
    if (id == kStateBufferIndex) {
      memory_.state_arena_bytes = arena_sizes[id];
    } else {
      memory_.work_arena_bytes += arena_sizes[id];
    }
  }
  memory_.separate_arenas_bytes = memory_.state_arena_bytes;

  // XNNPACK's weight cache, asked for at load (backends/xnnpack/runtime/XNNPACKBackend.h,
  // a header the wheel does not ship, names the backend and the option).
  executorch::runtime::BackendOptions<1> xnnpack_options;
  xnnpack_options.set_option("weight_cache_enabled", options.share_packed_weights);
  executorch::runtime::LoadBackendOptionsMap backend_options;
  if (backend_options.set_options("XnnpackBackend", xnnpack_options.view()) != executorch::runtime::Error::Ok) {
    return Failure(Error::Internal, "cannot pass options to the XNNPACK backend");
  }

  // Every method is loaded up front, each seeing the shared arenas with its own sizes.
  auto load_method = [&](LoadedMethod& loaded) -> Status {
    if (loaded.method != nullptr) return Status();
    const std::string& name = loaded.name;
    auto meta = prog.method_meta(name.c_str());
    for (size_t id = 0; id < meta->num_memory_planned_buffers(); ++id) {
      loaded.planned_spans.emplace_back(impl_->arenas[id].data(),
                                        static_cast<size_t>(meta->memory_planned_buffer_size(id).get()));
    }
    loaded.planned = std::make_unique<HierarchicalAllocator>(
        Span<Span<uint8_t>>(loaded.planned_spans.data(), loaded.planned_spans.size()));
    loaded.memory_manager = std::make_unique<MemoryManager>(
        impl_->memory->MethodAllocator(), loaded.planned.get(), impl_->memory->TempAllocator());
    auto method = prog.load_method(name.c_str(), loaded.memory_manager.get(), options.event_tracer,
                                   /*named_data_map=*/nullptr, &backend_options);
    if (!method.ok() && method.error() == Error::MemoryAllocationFailed) {
      return Failure(method.error(),
                     "cannot load method '%s': its runtime structures do not fit the method allocator "
                     "(%zu bytes in use; give the Session more memory for methods)",
                     name.c_str(), impl_->memory->MethodBytesUsed());
    }
    if (!method.ok()) {
      return Failure(method.error(),
                     "cannot load method '%s' (an operator or backend missing from this runtime, or a "
                     "corrupted program)",
                     name.c_str());
    }
    loaded.method = std::make_unique<Method>(std::move(method.get()));
    memory_.separate_arenas_bytes += loaded.work_bytes;
    return Status();
  };
  // Without a backend or with: the methods without one load first, so that a runtime
  // missing their kernels fails here, before anything runs (a wrong kernel set can abort
  // inside a kernel that is there but lacks a dtype).
  auto load_all = [&](bool with_backends) -> Status {
    for (auto& [name, loaded] : impl_->methods) {
      auto meta = prog.method_meta(name.c_str());
      if (!with_backends && meta.ok() && meta->num_backends() > 0) continue;
      PTEFORGE_RETURN_IF_ERROR(load_method(*loaded));
    }
    return Status();
  };

  // pteforge metadata: entry points, constants and state; otherwise every method.
  if (impl_->Find(kMetadataMethod) == nullptr) {
    PTEFORGE_RETURN_IF_ERROR(load_all(/*with_backends=*/true));
    memory_.method_bytes = impl_->memory->MethodBytesUsed();
    methods_ = all_methods_;
    return Status();
  }
  PTEFORGE_RETURN_IF_ERROR(load_all(/*with_backends=*/false));
  auto outputs = ExecuteLocked(kMetadataMethod, {}, nullptr);
  if (!outputs.ok()) return outputs.status();
  const auto* text = outputs->size() == 1 ? std::get_if<std::string>(&(*outputs)[0]) : nullptr;
  if (text == nullptr) return Failure(Error::InvalidProgram, "the program's %s is not text", kMetadataMethod);
  auto metadata = ParseMetadata(*text);
  if (!metadata.ok()) return metadata.status();
  metadata_ = std::move(metadata.value());
  methods_ = metadata_.methods;
  constants_ = metadata_.constants;
  for (const auto& name : methods_) {
    if (impl_->Find(name) == nullptr) {
      return Failure(Error::InvalidProgram, "the metadata lists method '%s', which the program lacks", name.c_str());
    }
  }
  // The state is reset and located before the methods with a backend load: the reset
  // (a method without one) touches the whole state and its zeros pass through the work
  // arena, pages given back before the backends pack their weights, so the two never
  // add up in the peak (ReturnUnusedPages). (state_starts_zeroed_ is still false here:
  // this reset runs reset_state.)
  PTEFORGE_RETURN_IF_ERROR(ResetStateLocked());
  ReturnUnusedPages();
  PTEFORGE_RETURN_IF_ERROR(LocateState());
  PTEFORGE_RETURN_IF_ERROR(load_all(/*with_backends=*/true));
  memory_.method_bytes = impl_->memory->MethodBytesUsed();
  for (const auto& written : metadata_.writes) {
    LoadedMethod* loaded = impl_->Find(written.method);
    const size_t inputs = loaded ? loaded->method->inputs_size() : 0;
    if (loaded == nullptr || written.index >= inputs || loaded->method->outputs_size() <= loaded->written_inputs.size()) {
      return Failure(Error::InvalidProgram, "the metadata says method '%s' writes its input %zu, which it lacks",
                     written.method.c_str(), written.index);
    }
    loaded->written_inputs.push_back(written.index);
  }
  return Status();
}

}  // namespace pteforge
