// The Session's state: located in the state arena after loading (from what get_state
// returns), read and written by name, reset by the program's reset_state.
#include "cc/runtime/session.h"

#include <cstring>
#include <mutex>

#include "cc/runtime/session_internal.h"

namespace pteforge {

using executorch::runtime::EValue;
using internal::LoadedMethod;
using internal::ShapeText;
using internal::Span;

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
  if (!outputs.ok()) return outputs.status();
  ReturnUnusedPages();
  return Status();
}

// After a reset nothing in the work arenas is needed (they hold a call's intermediates
// only), and the state is mostly zeros (a KV cache of max_seq_len positions): those
// pages go back to the system, which hands out zeroed pages again as a run fills them.
// A causal LM's reset writes its whole cache and passes the zeros through the work
// arena: without this, a session held all of both from the start (94 MB for
// SmolLM2-135M at max_seq_len 1024, docs/llm.md).
void Session::ReturnUnusedPages() {
  for (size_t id = 0; id < impl_->arenas.size(); ++id) {
    if (id == kStateBufferIndex) continue;
    if (!impl_->memory->ReturnPages(impl_->arenas[id].data(), impl_->arenas[id].size())) return;
  }
  if (impl_->arenas.size() <= kStateBufferIndex) return;
  // Runs of zero pages of the state (4 KB pages at least; ReturnPages rounds inward to
  // the system's page size).
  constexpr uintptr_t kPage = 4096;
  uint8_t* const begin = impl_->arenas[kStateBufferIndex].data();
  uint8_t* const end = begin + impl_->arenas[kStateBufferIndex].size();
  uint8_t* page = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(begin) + kPage - 1) / kPage * kPage);
  uint8_t* run = nullptr;  // the first zero page of the current run
  for (; page + kPage <= end; page += kPage) {
    const auto* words = reinterpret_cast<const uint64_t*>(page);
    uint64_t any = 0;
    for (size_t i = 0; i < kPage / sizeof(uint64_t); ++i) any |= words[i];
    if (any == 0 && run == nullptr) run = page;
    if (any != 0 && run != nullptr) {
      impl_->memory->ReturnPages(run, static_cast<size_t>(page - run));
      run = nullptr;
    }
  }
  if (run != nullptr) impl_->memory->ReturnPages(run, static_cast<size_t>(page - run));
}

}  // namespace pteforge
