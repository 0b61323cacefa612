// What the Session needs from the platform and cannot get the same way everywhere,
// chosen at build time (BUILD: platform_posix.cc on Linux, platform_baremetal.cc on
// a microcontroller). Everything else the Session does is the same on every target.
#ifndef PTEFORGE_CC_RUNTIME_PLATFORM_H_
#define PTEFORGE_CC_RUNTIME_PLATFORM_H_

#include <cstddef>
#include <memory>
#include <string>

#include <executorch/runtime/core/data_loader.h>

#include "cc/runtime/status.h"

namespace pteforge {

// A program file opened for loading, and its size.
struct ProgramFile {
  std::unique_ptr<executorch::runtime::DataLoader> loader;
  size_t size = 0;
};

// POSIX: memory-maps `path`. Bare metal: there is no file system; an error says to
// embed the program in the image and open it with Session::OpenBuffer.
StatusOr<ProgramFile> OpenProgramFile(const std::string& path);

// Serializes a Session's calls: a mutex where the platform has threads, nothing on a
// single-threaded microcontroller (newlib's C++ library there has no std::mutex).
// BasicLockable, for std::lock_guard.
class PlatformMutex {
 public:
  PlatformMutex();
  ~PlatformMutex();
  PlatformMutex(const PlatformMutex&) = delete;
  PlatformMutex& operator=(const PlatformMutex&) = delete;
  void lock();
  void unlock();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pteforge

#endif  // PTEFORGE_CC_RUNTIME_PLATFORM_H_
