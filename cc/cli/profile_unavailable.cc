#include "cc/cli/profile.h"

// The runtime from source has no devtools (no ETDump): see profile.h.
namespace pteforge {

struct Profile::Recorder {};

Profile::Profile() = default;
Profile::~Profile() = default;

bool Profile::Available() { return false; }

executorch::runtime::EventTracer* Profile::tracer() { return nullptr; }

Status Profile::Write(const std::string& path) {
  return Failure(Error::NotSupported,
                 "cannot write --etdump=%s: this build's ExecuTorch runtime (from source) has no devtools",
                 path.c_str());
}

}  // namespace pteforge
