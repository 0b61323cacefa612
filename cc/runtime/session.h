// Session: one ExecuTorch program with all its methods loaded, sharing state.
//
// A pteforge .pte has several entry points that read and write the same state (see
// python/pteforge). A Session:
//   - memory-maps the .pte (or reads a program already in memory) and loads *every* method before the first call (loading a
//     method later would make ExecuTorch's loader rewrite state: FINDINGS.md);
//   - gives all methods the same planned arenas: the state arena (memory id 2) so
//     that they share state, and one work arena of the largest method's size, reused
//     by all methods since they never run at the same time. Planned memory is thus
//     max over methods + state, where ExecuTorch's Module pays the sum;
//   - writes the state's initial values by running the program's `reset_state`;
//   - copies inputs in and outputs out: a returned Value never aliases runtime memory;
//   - writes back the inputs a method writes in place (as the eager PyTorch method
//     writes its caller's tensors): ExecuteInPlace(method, &inputs) updates them;
//   - reads and writes state buffers by the names the exporter emitted.
// Programs without pteforge metadata also run (every method is an entry point and
// there is no named state).
//
// Errors come back as Status/StatusOr with a message; nothing throws or aborts on bad
// input (the program file, method names, input values).
//
// The same implementation runs on Linux and on a microcontroller; what differs (files,
// locks, where memory comes from) sits behind platform.h and SessionMemory.
//
// Thread safety: a Session may be shared between threads. Calls are serialized by an
// internal mutex (methods share memory, so they must never overlap); a call waits for
// the one in progress. (Single-threaded targets have no mutex.)
#ifndef PTEFORGE_CC_RUNTIME_SESSION_H_
#define PTEFORGE_CC_RUNTIME_SESSION_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <executorch/runtime/core/event_tracer.h>
#include <executorch/runtime/core/tag.h>

#include "cc/runtime/metadata.h"
#include "cc/runtime/platform.h"
#include "cc/runtime/session_memory.h"
#include "cc/runtime/status.h"
#include "cc/runtime/value.h"

namespace pteforge {

struct SessionOptions {
  // Receives profiling events from every method (e.g. an ETDumpGen); not owned, must
  // outlive the Session. Null: no profiling.
  executorch::runtime::EventTracer* event_tracer = nullptr;
  // Refuse programs whose planned memory (state + work arenas) exceeds this, instead of
  // allocating it: a corrupted or unexpected program must not take the device's memory.
  size_t max_planned_bytes = size_t{2} << 30;
  // Where the arenas and the methods' runtime structures come from; not owned, must
  // outlive the Session. Null: the heap (HeapMemory). A microcontroller passes a
  // StaticMemory over buffers sized at build time (cc/embedded).
  SessionMemory* memory = nullptr;
  // XNNPACK packs each of the program's weights once per process, for every method
  // and every Session that uses the same weights (its weight cache, keyed by the
  // weights' names in the program): a language model's prefill and decode_step would
  // otherwise each hold a packed copy. The price: XNNPACK calls of Sessions sharing
  // the cache run one at a time. Off by default: ExecuTorch 1.5.1's cache crashed one
  // program of pteforge's corpus (a GRU cell on XNNPACK, inside XNNPACK's kernel), so
  // the tools whose programs are tested with it turn it on (generate, vad's streams).
  // No effect on programs without XNNPACK.
  bool share_packed_weights = false;
};

// The type of one method input or output.
struct ValueSpec {
  // Its path in the method's arguments or result as pteforge's metadata names it (`x`,
  // `xs[1]`, `d['a']`; `[0]`, `['h']`): a method's arguments and result may be tuples,
  // lists and dicts of tensors, which the program takes and returns flattened. Empty
  // for a single output, and for programs without such names.
  std::string name;
  executorch::runtime::Tag tag = executorch::runtime::Tag::None;
  // For tensors:
  ScalarType dtype = ScalarType::Float;
  std::vector<int64_t> min_sizes;  // lower bounds (= max_sizes where static)
  std::vector<int64_t> max_sizes;  // the sizes, or upper bounds where dynamic
  // Per dimension. For inputs of a pteforge program, from the exporter's dynamic
  // shapes; otherwise every dimension of a resizable tensor counts as dynamic (0..max).
  // Outputs: all false (their sizes are known after a call).
  std::vector<bool> dynamic;
};

struct MethodSignature {
  std::string name;
  std::vector<ValueSpec> inputs;
  std::vector<ValueSpec> outputs;  // the method's own outputs
  // The inputs the method writes in place, by index (e.g. `data.copy_(...)` in
  // PyTorch): ExecuteInPlace(method, &inputs) leaves their final values in the caller's
  // tensors. Empty for most methods.
  std::vector<size_t> written_inputs;
  size_t planned_work_bytes = 0;  // what the method plans outside the state arena
};

// One state buffer: where it lives in the state arena.
struct StateBuffer {
  std::string name;
  bool shared = false;
  ScalarType dtype = ScalarType::Float;
  std::vector<int64_t> sizes;
  size_t offset = 0;  // in the state arena
  size_t nbytes = 0;
};

struct MemoryUsage {
  size_t state_arena_bytes = 0;  // planned memory id 2, shared by all methods
  size_t work_arena_bytes = 0;   // all other planned memory, shared by all methods
  size_t total_planned_bytes() const { return state_arena_bytes + work_arena_bytes; }
  // What one arena per method would cost (ExecuTorch's default): sum of each
  // method's own work memory, plus the state.
  size_t separate_arenas_bytes = 0;
  // The loaded methods' runtime structures (values, tensors, instruction lists), where
  // the SessionMemory keeps count (StaticMemory); 0 otherwise.
  size_t method_bytes = 0;
};

class Session {
 public:
  // Opens `path` and loads every method. The error says what is wrong with the file.
  static StatusOr<std::unique_ptr<Session>> Open(const std::string& path, SessionOptions options = {});
  // The same for a program already in memory; `data` must outlive the Session.
  static StatusOr<std::unique_ptr<Session>> OpenBuffer(const void* data, size_t size, SessionOptions options = {});

  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // The user's entry points (every method of a non-pteforge program), in the order
  // the exporter registered them.
  const std::vector<std::string>& methods() const { return methods_; }
  // The user's constant methods (e.g. max_rows).
  const std::vector<std::string>& constants() const { return constants_; }
  // Every method in the program, including generated ones, sorted.
  const std::vector<std::string>& all_methods() const { return all_methods_; }
  // The state buffers in get_state order (empty for a non-pteforge program).
  const std::vector<StateBuffer>& state() const { return state_; }
  const MemoryUsage& memory() const { return memory_; }

  StatusOr<MethodSignature> Signature(const std::string& method) const;

  // Runs `method` on `inputs` (checked against the signature first: count, kind,
  // dtype, rank and sizes) and returns copies of its outputs. A method that writes
  // its inputs (MethodSignature::written_inputs) is refused here: use ExecuteInPlace,
  // so that the written values are not silently dropped.
  StatusOr<std::vector<Value>> Execute(const std::string& method, const std::vector<Value>& inputs);
  // The same, and the tensors among `*inputs` that the method writes in place get its
  // final values, copied into their existing bytes (as eager PyTorch updates the
  // caller's tensor; the dtype and sizes stay). Other inputs are not changed.
  StatusOr<std::vector<Value>> ExecuteInPlace(const std::string& method, std::vector<Value>* inputs);

  // A copy of a state buffer's current value.
  StatusOr<HostTensor> ReadState(const std::string& name);
  // Overwrites a state buffer; `value` must have its dtype and sizes.
  Status WriteState(const std::string& name, const HostTensor& value);
  // Writes every state buffer's initial value (the program's reset_state).
  Status ResetState();

 private:
  struct Impl;  // ExecuTorch objects, arenas and loaded methods (session.cc)
  Session();

  // Loads the program from impl_->loader; `what` names it in messages.
  Status Load(const std::string& what, size_t size, SessionOptions options);
  Status LocateState();
  Status ResetStateLocked();
  void ReturnUnusedPages();
  const StateBuffer* FindState(const std::string& name) const;
  // `written_back`: where the written inputs go (the same vector as `inputs`), or null
  // for a method that writes none.
  StatusOr<std::vector<Value>> ExecuteLocked(const std::string& method, const std::vector<Value>& inputs,
                                             std::vector<Value>* written_back);

  std::unique_ptr<Impl> impl_;
  PlatformMutex mutex_;  // serializes every call that touches program memory
  std::vector<std::string> methods_;
  std::vector<std::string> constants_;
  std::vector<std::string> all_methods_;
  std::vector<StateBuffer> state_;
  // The state's initial values are all zeros: a reset gives the state arena's pages
  // back instead of running reset_state (ReturnUnusedPages finds it out at load).
  bool state_starts_zeroed_ = false;
  Metadata metadata_;
  MemoryUsage memory_;
};

}  // namespace pteforge

#endif  // PTEFORGE_CC_RUNTIME_SESSION_H_
