// The Session's platform layer on Linux: memory-mapped program files and a real mutex.
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <mutex>

#include <executorch/extension/data_loader/mmap_data_loader.h>

#include "cc/runtime/platform.h"

namespace pteforge {

using executorch::extension::MmapDataLoader;

StatusOr<ProgramFile> OpenProgramFile(const std::string& path) {
  struct stat info;
  if (::stat(path.c_str(), &info) != 0) {
    return Failure(Error::AccessFailed, "cannot open '%s': %s", path.c_str(), std::strerror(errno));
  }
  if (!S_ISREG(info.st_mode)) {
    return Failure(Error::AccessFailed, "'%s' is not a regular file", path.c_str());
  }
  if (info.st_size == 0) {
    return Failure(Error::InvalidProgram, "'%s' is empty, not an ExecuTorch program (.pte)", path.c_str());
  }
  auto loader = MmapDataLoader::from(path.c_str(), MmapDataLoader::MlockConfig::NoMlock);
  if (!loader.ok()) return Failure(loader.error(), "cannot memory-map '%s'", path.c_str());
  ProgramFile file;
  file.loader = std::make_unique<MmapDataLoader>(std::move(loader.get()));
  file.size = static_cast<size_t>(info.st_size);
  return file;
}

struct PlatformMutex::Impl {
  std::mutex mutex;
};

PlatformMutex::PlatformMutex() : impl_(new Impl) {}
PlatformMutex::~PlatformMutex() = default;
void PlatformMutex::lock() { impl_->mutex.lock(); }
void PlatformMutex::unlock() { impl_->mutex.unlock(); }

}  // namespace pteforge
