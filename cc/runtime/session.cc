#include "cc/runtime/session.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <mutex>
#include <unordered_map>

#include <executorch/extension/data_loader/buffer_data_loader.h>
#include <executorch/runtime/core/hierarchical_allocator.h>
#include <executorch/runtime/executor/memory_manager.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/platform/runtime.h>

#include "cc/runtime/program_check.h"

namespace pteforge {
namespace {

using executorch::extension::BufferDataLoader;
using executorch::runtime::EValue;
using executorch::runtime::HierarchicalAllocator;
using executorch::runtime::MemoryManager;
using executorch::runtime::Method;
using executorch::runtime::MethodMeta;
using executorch::runtime::Program;
using executorch::runtime::Span;
using executorch::runtime::Tag;
using executorch::runtime::TensorShapeDynamism;

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

// A contiguous row-major tensor over a HostTensor's bytes, without copying them.
class TensorView {
 public:
  explicit TensorView(const HostTensor& host)
      : sizes_(host.sizes.begin(), host.sizes.end()), dim_order_(sizes_.size()), strides_(sizes_.size()) {
    std::iota(dim_order_.begin(), dim_order_.end(), 0);
    executorch::aten::StridesType stride = 1;
    for (size_t d = sizes_.size(); d-- > 0;) {
      strides_[d] = stride;
      stride *= sizes_[d];
    }
    impl_ = std::make_unique<executorch::aten::TensorImpl>(
        host.dtype, static_cast<ssize_t>(sizes_.size()), sizes_.data(), const_cast<uint8_t*>(host.bytes.data()),
        dim_order_.data(), strides_.data(), TensorShapeDynamism::STATIC);
  }
  executorch::aten::Tensor tensor() { return executorch::aten::Tensor(impl_.get()); }

 private:
  std::vector<executorch::aten::SizesType> sizes_;
  std::vector<executorch::aten::DimOrderType> dim_order_;
  std::vector<executorch::aten::StridesType> strides_;
  std::unique_ptr<executorch::aten::TensorImpl> impl_;
};

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

}  // namespace

struct Session::Impl {
  std::unique_ptr<executorch::runtime::DataLoader> loader;
  std::unique_ptr<SessionMemory> owned_memory;  // HeapMemory unless the caller gave one
  SessionMemory* memory = nullptr;
  std::unique_ptr<Program> program;
  std::vector<Span<uint8_t>> arenas;  // per planned buffer index, shared by all methods
  std::unordered_map<std::string, std::unique_ptr<LoadedMethod>> methods;

  LoadedMethod* Find(const std::string& name) const {
    auto it = methods.find(name);
    return it == methods.end() ? nullptr : it->second.get();
  }
  uint8_t* state() const { return arenas[kStateBufferIndex].data(); }
};

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

  // Load every method up front, each seeing the shared arenas with its own sizes.
  for (auto& [name, loaded] : impl_->methods) {
    auto meta = prog.method_meta(name.c_str());
    for (size_t id = 0; id < meta->num_memory_planned_buffers(); ++id) {
      loaded->planned_spans.emplace_back(impl_->arenas[id].data(),
                                         static_cast<size_t>(meta->memory_planned_buffer_size(id).get()));
    }
    loaded->planned = std::make_unique<HierarchicalAllocator>(
        Span<Span<uint8_t>>(loaded->planned_spans.data(), loaded->planned_spans.size()));
    loaded->memory_manager = std::make_unique<MemoryManager>(
        impl_->memory->MethodAllocator(), loaded->planned.get(), impl_->memory->TempAllocator());
    auto method = prog.load_method(name.c_str(), loaded->memory_manager.get(), options.event_tracer);
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
    loaded->method = std::make_unique<Method>(std::move(method.get()));
    memory_.separate_arenas_bytes += loaded->work_bytes;
  }
  memory_.method_bytes = impl_->memory->MethodBytesUsed();

  // pteforge metadata: entry points, constants and state; otherwise every method.
  if (impl_->Find(kMetadataMethod) != nullptr) {
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
    for (const auto& written : metadata_.writes) {
      LoadedMethod* loaded = impl_->Find(written.method);
      const size_t inputs = loaded ? loaded->method->inputs_size() : 0;
      if (loaded == nullptr || written.index >= inputs || loaded->method->outputs_size() <= loaded->written_inputs.size()) {
        return Failure(Error::InvalidProgram, "the metadata says method '%s' writes its input %zu, which it lacks",
                       written.method.c_str(), written.index);
      }
      loaded->written_inputs.push_back(written.index);
    }
    PTEFORGE_RETURN_IF_ERROR(ResetStateLocked());
    PTEFORGE_RETURN_IF_ERROR(LocateState());
  } else {
    methods_ = all_methods_;
  }
  return Status();
}

// Finds each state buffer in the state arena from the tensors get_state returns (they
// point into the arena), checking them against the metadata.
Status Session::LocateState() {
  if (metadata_.get_state.empty()) return Status();
  LoadedMethod* get_state = impl_->Find(metadata_.get_state);
  if (get_state == nullptr) {
    return Failure(Error::InvalidProgram, "the program lacks its state reader '%s'", metadata_.get_state.c_str());
  }
  Error error = get_state->method->execute();
  if (error != Error::Ok) return Failure(error, "running '%s' failed", metadata_.get_state.c_str());
  if (get_state->method->outputs_size() != metadata_.state.size()) {
    return Failure(Error::InvalidProgram, "'%s' returns %zu values; the metadata lists %zu state buffers",
                   metadata_.get_state.c_str(), get_state->method->outputs_size(), metadata_.state.size());
  }
  if (impl_->arenas.size() <= kStateBufferIndex) {
    return Failure(Error::InvalidProgram, "the program has state but no state arena (planned buffer %zu)", kStateBufferIndex);
  }
  const Span<uint8_t>& arena = impl_->arenas[kStateBufferIndex];
  for (size_t i = 0; i < metadata_.state.size(); ++i) {
    const StateEntry& entry = metadata_.state[i];
    const EValue& value = get_state->method->get_output(i);
    if (!value.isTensor()) {
      return Failure(Error::InvalidProgram, "state buffer '%s' is not a tensor", entry.name.c_str());
    }
    const auto& tensor = value.toTensor();
    std::vector<int64_t> sizes(tensor.sizes().begin(), tensor.sizes().end());
    const auto* data = static_cast<const uint8_t*>(tensor.const_data_ptr());
    size_t nbytes = tensor.nbytes();
    if (tensor.scalar_type() != entry.dtype || sizes != entry.sizes || data < arena.data() ||
        data + nbytes > arena.data() + arena.size()) {
      return Failure(Error::InvalidProgram,
                     "state buffer '%s' is not where the program's metadata says (%s %s, in the state arena)",
                     entry.name.c_str(), DTypeName(entry.dtype), ShapeText(entry.sizes).c_str());
    }
    state_.push_back(StateBuffer{entry.name, entry.shared, entry.dtype, entry.sizes,
                                 static_cast<size_t>(data - arena.data()), nbytes});
  }
  return Status();
}

StatusOr<MethodSignature> Session::Signature(const std::string& method) const {
  LoadedMethod* loaded = impl_->Find(method);
  if (loaded == nullptr) {
    return Failure(Error::InvalidArgument, "no method '%s' in the program", method.c_str());
  }
  const MethodMeta meta = loaded->method->method_meta();
  MethodSignature signature;
  signature.name = method;
  signature.planned_work_bytes = loaded->work_bytes;
  signature.written_inputs = loaded->written_inputs;
  // The values of written inputs follow the method's own outputs (Load checked there
  // are more outputs than written inputs).
  const size_t own_outputs = meta.num_outputs() - loaded->written_inputs.size();
  for (size_t i = 0; i < meta.num_inputs() + own_outputs; ++i) {
    bool input = i < meta.num_inputs();
    size_t index = input ? i : i - meta.num_inputs();
    ValueSpec spec;
    auto tag = input ? meta.input_tag(index) : meta.output_tag(index);
    if (!tag.ok()) return Failure(tag.error(), "cannot read the signature of '%s'", method.c_str());
    spec.tag = tag.get();
    if (spec.tag == Tag::Tensor) {
      auto info = input ? meta.input_tensor_meta(index) : meta.output_tensor_meta(index);
      if (!info.ok()) return Failure(info.error(), "cannot read the signature of '%s'", method.c_str());
      spec.dtype = info->scalar_type();
      spec.max_sizes.assign(info->sizes().begin(), info->sizes().end());
      spec.min_sizes = spec.max_sizes;
      spec.dynamic.assign(spec.max_sizes.size(), false);
      const InputEntry* bounds = input ? metadata_.FindInput(method, index) : nullptr;
      if (bounds != nullptr && bounds->max_sizes == spec.max_sizes) {
        spec.min_sizes = bounds->min_sizes;
        for (size_t d = 0; d < spec.dynamic.size(); ++d) spec.dynamic[d] = bounds->min_sizes[d] != bounds->max_sizes[d];
      } else if (input) {
        // No exporter bounds: whether the tensor may resize is on the loaded input.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
        const EValue& current = loaded->method->get_input(index);
#pragma GCC diagnostic pop
        if (current.isTensor() && current.toTensor().shape_dynamism() != TensorShapeDynamism::STATIC) {
          spec.dynamic.assign(spec.max_sizes.size(), true);
          spec.min_sizes.assign(spec.max_sizes.size(), 0);
        }
      }
    }
    (input ? signature.inputs : signature.outputs).push_back(std::move(spec));
  }
  return signature;
}

namespace {

// Checks one input against its spec; the message names the method and input.
Status CheckInput(const std::string& method, size_t index, const ValueSpec& spec, const Value& value) {
  auto fail = [&](const std::string& what) {
    return Failure(Error::InvalidArgument, "method '%s', input %zu: %s", method.c_str(), index, what.c_str());
  };
  switch (spec.tag) {
    case Tag::Tensor: {
      const auto* tensor = std::get_if<HostTensor>(&value);
      if (tensor == nullptr) return fail("expected a tensor, got " + DescribeValue(value));
      if (tensor->dtype != spec.dtype) {
        return fail(std::string("expected dtype ") + DTypeName(spec.dtype) + ", got " + DTypeName(tensor->dtype));
      }
      if (tensor->sizes.size() != spec.max_sizes.size()) {
        return fail("expected rank " + std::to_string(spec.max_sizes.size()) + " " + ShapeText(spec.max_sizes) +
                    ", got rank " + std::to_string(tensor->sizes.size()) + " " + ShapeText(tensor->sizes));
      }
      for (size_t d = 0; d < spec.max_sizes.size(); ++d) {
        int64_t size = tensor->sizes[d];
        std::string where = "dimension " + std::to_string(d) + " is " + std::to_string(size) + ", ";
        std::string shape = " (shape " + ShapeText(tensor->sizes) + ")";
        if (!spec.dynamic[d] && size != spec.max_sizes[d]) {
          return fail(where + "but must be " + std::to_string(spec.max_sizes[d]) + shape);
        }
        if (size > spec.max_sizes[d]) {
          return fail(where + "beyond its dynamic bound " + std::to_string(spec.max_sizes[d]) + shape);
        }
        if (size < spec.min_sizes[d]) {
          return fail(where + "below its dynamic minimum " + std::to_string(spec.min_sizes[d]) + shape);
        }
      }
      if (tensor->bytes.size() != static_cast<size_t>(tensor->numel()) * ElementSize(tensor->dtype)) {
        return fail("the tensor holds " + std::to_string(tensor->bytes.size()) + " bytes, not the " +
                    std::to_string(tensor->numel() * ElementSize(tensor->dtype)) + " its shape needs");
      }
      return Status();
    }
    case Tag::Int:
      return std::holds_alternative<int64_t>(value) ? Status() : fail("expected an int, got " + DescribeValue(value));
    case Tag::Double:
      return std::holds_alternative<double>(value) ? Status() : fail("expected a float, got " + DescribeValue(value));
    case Tag::Bool:
      return std::holds_alternative<bool>(value) ? Status() : fail("expected a bool, got " + DescribeValue(value));
    default:
      return fail(std::string("inputs of kind ") + TagName(spec.tag) + " are not supported");
  }
}

StatusOr<Value> CopyOut(const std::string& method, size_t index, const EValue& value) {
  if (value.isTensor()) {
    const auto& tensor = value.toTensor();
    if (ElementSize(tensor.scalar_type()) == 0) {
      return Failure(Error::NotSupported, "method '%s', output %zu: dtype %d is not supported", method.c_str(),
                     index, static_cast<int>(tensor.scalar_type()));
    }
    HostTensor copy = HostTensor::Zeros(tensor.scalar_type(),
                                        std::vector<int64_t>(tensor.sizes().begin(), tensor.sizes().end()));
    if (copy.bytes.size() != tensor.nbytes()) {
      return Failure(Error::Internal, "method '%s', output %zu: unexpected size", method.c_str(), index);
    }
    if (!copy.bytes.empty()) std::memcpy(copy.bytes.data(), tensor.const_data_ptr(), copy.bytes.size());
    return Value(std::move(copy));
  }
  if (value.isInt()) return Value(value.toInt());
  if (value.isDouble()) return Value(value.toDouble());
  if (value.isBool()) return Value(value.toBool());
  if (value.isString()) return Value(std::string(value.toString()));
  if (value.isNone()) return Value();
  return Failure(Error::NotSupported, "method '%s', output %zu: unsupported output kind %s", method.c_str(), index,
                 TagName(value.tag));
}

// Copies a written input's final value (output `index` of `method`) into the caller's
// tensor, which must keep its dtype and sizes (an in-place write never changes them).
Status WriteBack(const std::string& method, size_t input, const EValue& value, HostTensor* tensor) {
  if (!value.isTensor()) {
    return Failure(Error::InvalidProgram, "method '%s': the value written into input %zu is not a tensor",
                   method.c_str(), input);
  }
  const auto& written = value.toTensor();
  if (written.scalar_type() != tensor->dtype || written.nbytes() != tensor->bytes.size() ||
      !std::equal(written.sizes().begin(), written.sizes().end(), tensor->sizes.begin(), tensor->sizes.end())) {
    return Failure(Error::InvalidProgram, "method '%s': the value written into input %zu is not %s", method.c_str(),
                   input, DescribeValue(Value(*tensor)).c_str());
  }
  if (!tensor->bytes.empty()) std::memcpy(tensor->bytes.data(), written.const_data_ptr(), tensor->bytes.size());
  return Status();
}

}  // namespace

StatusOr<std::vector<Value>> Session::Execute(const std::string& method, const std::vector<Value>& inputs) {
  std::lock_guard<PlatformMutex> lock(mutex_);
  LoadedMethod* loaded = impl_->Find(method);
  if (loaded != nullptr && !loaded->written_inputs.empty()) {
    return Failure(Error::InvalidArgument,
                   "method '%s' writes its input %zu in place (as the PyTorch method writes its caller's tensor); "
                   "call Session::ExecuteInPlace(method, &inputs) to receive the written values",
                   method.c_str(), loaded->written_inputs[0]);
  }
  return ExecuteLocked(method, inputs, nullptr);
}

StatusOr<std::vector<Value>> Session::ExecuteInPlace(const std::string& method, std::vector<Value>* inputs) {
  if (inputs == nullptr) return Failure(Error::InvalidArgument, "method '%s': the inputs are null", method.c_str());
  std::lock_guard<PlatformMutex> lock(mutex_);
  return ExecuteLocked(method, *inputs, inputs);
}

StatusOr<std::vector<Value>> Session::ExecuteLocked(const std::string& method, const std::vector<Value>& inputs,
                                                    std::vector<Value>* written_back) {
  LoadedMethod* loaded = impl_->Find(method);
  if (loaded == nullptr) {
    std::string known;
    for (const auto& name : methods_) known += (known.empty() ? "" : ", ") + name;
    return Failure(Error::InvalidArgument, "no method '%s' in the program (its methods: %s)", method.c_str(),
                   known.c_str());
  }
  auto signature = Signature(method);
  if (!signature.ok()) return signature.status();
  if (inputs.size() != signature->inputs.size()) {
    return Failure(Error::InvalidArgument, "method '%s' takes %zu inputs, got %zu", method.c_str(),
                   signature->inputs.size(), inputs.size());
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    PTEFORGE_RETURN_IF_ERROR(CheckInput(method, i, signature->inputs[i], inputs[i]));
  }
  Method& m = *loaded->method;
  for (size_t i = 0; i < inputs.size(); ++i) {
    Error error = Error::Ok;
    if (const auto* tensor = std::get_if<HostTensor>(&inputs[i])) {
      // A view of the caller's bytes: set_input copies them into planned memory.
      TensorView view(*tensor);
      error = m.set_input(EValue(view.tensor()), i);
    } else if (const auto* integer = std::get_if<int64_t>(&inputs[i])) {
      error = m.set_input(EValue(*integer), i);
    } else if (const auto* real = std::get_if<double>(&inputs[i])) {
      error = m.set_input(EValue(*real), i);
    } else if (const auto* flag = std::get_if<bool>(&inputs[i])) {
      error = m.set_input(EValue(*flag), i);
    }
    if (error != Error::Ok) {
      return Failure(error, "method '%s': the runtime rejected input %zu (%s)", method.c_str(), i,
                     DescribeValue(inputs[i]).c_str());
    }
  }
  Error error = m.execute();
  if (error != Error::Ok) return Failure(error, "method '%s' failed while running", method.c_str());
  const size_t own_outputs = m.outputs_size() - loaded->written_inputs.size();
  std::vector<Value> outputs;
  for (size_t i = 0; i < own_outputs; ++i) {
    auto value = CopyOut(method, i, m.get_output(i));
    if (!value.ok()) return value.status();
    outputs.push_back(std::move(value.value()));
  }
  for (size_t j = 0; j < loaded->written_inputs.size() && written_back != nullptr; ++j) {
    const size_t input = loaded->written_inputs[j];
    PTEFORGE_RETURN_IF_ERROR(
        WriteBack(method, input, m.get_output(own_outputs + j), &std::get<HostTensor>((*written_back)[input])));
  }
  return outputs;
}

const StateBuffer* Session::FindState(const std::string& name) const {
  for (const auto& buffer : state_) {
    if (buffer.name == name) return &buffer;
  }
  return nullptr;
}

namespace {
Status UnknownState(const std::string& name, const std::vector<StateBuffer>& state) {
  std::string known;
  for (const auto& buffer : state) known += (known.empty() ? "" : ", ") + buffer.name;
  return Failure(Error::InvalidArgument, "no state buffer '%s' (the program's state: %s)", name.c_str(),
                 known.empty() ? "none" : known.c_str());
}
}  // namespace

StatusOr<HostTensor> Session::ReadState(const std::string& name) {
  std::lock_guard<PlatformMutex> lock(mutex_);
  const StateBuffer* buffer = FindState(name);
  if (buffer == nullptr) return UnknownState(name, state_);
  HostTensor copy = HostTensor::Zeros(buffer->dtype, buffer->sizes);
  std::memcpy(copy.bytes.data(), impl_->state() + buffer->offset, buffer->nbytes);
  return copy;
}

Status Session::WriteState(const std::string& name, const HostTensor& value) {
  std::lock_guard<PlatformMutex> lock(mutex_);
  const StateBuffer* buffer = FindState(name);
  if (buffer == nullptr) return UnknownState(name, state_);
  if (value.dtype != buffer->dtype || value.sizes != buffer->sizes || value.bytes.size() != buffer->nbytes) {
    return Failure(Error::InvalidArgument, "state buffer '%s' is %s %s; got %s", name.c_str(),
                   DTypeName(buffer->dtype), ShapeText(buffer->sizes).c_str(), DescribeValue(Value(value)).c_str());
  }
  std::memcpy(impl_->state() + buffer->offset, value.bytes.data(), buffer->nbytes);
  return Status();
}

Status Session::ResetState() {
  std::lock_guard<PlatformMutex> lock(mutex_);
  return ResetStateLocked();
}

Status Session::ResetStateLocked() {
  if (metadata_.reset_state.empty()) return Status();
  auto outputs = ExecuteLocked(metadata_.reset_state, {}, nullptr);
  return outputs.ok() ? Status() : outputs.status();
}

}  // namespace pteforge
