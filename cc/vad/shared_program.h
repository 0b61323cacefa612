// One Silero VAD program in memory for many streams (a service with many microphones).
//
// The .pte is mapped once; each stream gets its own Session over those same bytes
// (Session::OpenBuffer), so the weights, which ExecuTorch reads in place from the
// program's buffer, are in memory once, and a stream costs its own state, its work
// arena and the methods' runtime structures (tens of KB; docs/silero-vad.md has the
// measured RSS). On XNNPACK, the packed copy of the weights is shared too: the
// Sessions share XNNPACK's weight cache (SessionOptions::share_packed_weights), which
// packs each weight once per process.
//
// POSIX (mmap). Thread-safe: NewStream may be called from several threads, and the
// models it returns are independent.
#ifndef PTEFORGE_CC_VAD_SHARED_PROGRAM_H_
#define PTEFORGE_CC_VAD_SHARED_PROGRAM_H_

#include <cstddef>
#include <memory>
#include <string>

#include "cc/runtime/status.h"
#include "cc/vad/vad_model.h"

namespace pteforge {

class SharedProgram {
 public:
  // Maps the .pte at `path` (read-only); the error says what is wrong with the file.
  static StatusOr<std::unique_ptr<SharedProgram>> Map(const std::string& path);
  ~SharedProgram();
  SharedProgram(const SharedProgram&) = delete;
  SharedProgram& operator=(const SharedProgram&) = delete;

  // A new stream's model: a Session on the shared bytes, with its own state. The
  // models must not outlive this object.
  StatusOr<std::unique_ptr<VadModel>> NewStream() const;

 private:
  SharedProgram() = default;

  std::string path_;
  void* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace pteforge

#endif  // PTEFORGE_CC_VAD_SHARED_PROGRAM_H_
