// The Session's platform layer on a microcontroller: no file system (programs are
// embedded in the image, cc/embedded) and one thread, so no lock.
#include "cc/runtime/platform.h"

namespace pteforge {

StatusOr<ProgramFile> OpenProgramFile(const std::string& path) {
  return Failure(Error::NotSupported,
                 "cannot open '%s': this target has no file system. Embed the program in the image "
                 "(pte_embed, bazel/embedded.bzl) and open it with Session::OpenBuffer",
                 path.c_str());
}

struct PlatformMutex::Impl {};

PlatformMutex::PlatformMutex() = default;
PlatformMutex::~PlatformMutex() = default;
void PlatformMutex::lock() {}
void PlatformMutex::unlock() {}

}  // namespace pteforge
