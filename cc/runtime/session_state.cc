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
  // A state whose initial values are all zeros (a KV cache) is reset without running
  // reset_state, whose zeros would touch every page of the state and pass through the
  // work arena (94 MB at once for SmolLM2-135M at max_seq_len 1024): its pages are given
  // back, and a run touches again only those it fills.
  if (state_starts_zeroed_) {  // only ever set with a state arena (ReturnUnusedPages)
    const Span<uint8_t>& state = impl_->arenas[kStateBufferIndex];
    if (impl_->memory->ZeroByReturningPages(state.data(), state.size())) return Status();
  }
  auto outputs = ExecuteLocked(metadata_.reset_state, {}, nullptr);
  return outputs.ok() ? Status() : outputs.status();
}

// After the first reset, at load: nothing in the work arenas is needed (they hold a
// call's intermediates only), and the state is mostly zeros (a KV cache of max_seq_len
// positions): those pages go back to the system, which hands out zeroed pages again as
// a run fills them. Without this a causal LM's session held its whole cache and the
// reset's zeros in the work arena from the start (94 MB for SmolLM2-135M at max_seq_len
// 1024, docs/llm.md). Notes whether the state is all zeros (state_starts_zeroed_). Only
// at load: later resets leave the work arenas, which the next call touches again anyway.
void Session::ReturnUnusedPages() {
  for (size_t id = 0; id < impl_->arenas.size(); ++id) {
    if (id == kStateBufferIndex) continue;
    if (!impl_->memory->ZeroByReturningPages(impl_->arenas[id].data(), impl_->arenas[id].size())) return;
  }
  if (impl_->arenas.size() <= kStateBufferIndex) return;
  // Runs of zero 4 KB blocks of the state (ZeroByReturningPages gives back the whole
  // system pages among them).
  constexpr uintptr_t kBlock = 4096;
  uint8_t* const begin = impl_->arenas[kStateBufferIndex].data();
  uint8_t* const end = begin + impl_->arenas[kStateBufferIndex].size();
  uint8_t* block = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(begin) + kBlock - 1) / kBlock * kBlock);
  bool all_zero = true;
  for (const uint8_t* p = begin; p < block && p < end; ++p) all_zero = all_zero && *p == 0;
  uint8_t* run = nullptr;  // the first zero block of the current run
  for (; block + kBlock <= end; block += kBlock) {
    const auto* words = reinterpret_cast<const uint64_t*>(block);
    uint64_t any = 0;
    for (size_t i = 0; i < kBlock / sizeof(uint64_t); ++i) any |= words[i];
    if (any == 0 && run == nullptr) run = block;
    if (any != 0 && run != nullptr) {
      impl_->memory->ZeroByReturningPages(run, static_cast<size_t>(block - run));
      run = nullptr;
    }
    all_zero = all_zero && any == 0;
  }
  if (run != nullptr) impl_->memory->ZeroByReturningPages(run, static_cast<size_t>(block - run));
  for (const uint8_t* p = block; p < end; ++p) all_zero = all_zero && *p == 0;
  state_starts_zeroed_ = all_zero;
}

}  // namespace pteforge
