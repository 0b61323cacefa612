#include "cc/cli/profile.h"

// The runtime from source has no devtools (no ETDump): see profile.h.
namespace pteforge {

struct Profile::Recorder {};

Profile::Profile() = default;
Profile::~Profile() = default;

Status Profile::CheckAvailable() {
  return Failure(Error::NotSupported,
                 "--etdump: this build's ExecuTorch runtime (from source) has no devtools to profile with");
}

executorch::runtime::EventTracer* Profile::tracer() { return nullptr; }

Status Profile::Write(const std::string& /*path*/) { return CheckAvailable(); }

}  // namespace pteforge
