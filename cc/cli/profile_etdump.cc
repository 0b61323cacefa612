#include <cstdio>
#include <cstdlib>

#include <executorch/devtools/etdump/etdump_flatcc.h>

#include "cc/cli/profile.h"

namespace pteforge {

struct Profile::Recorder {
  executorch::etdump::ETDumpGen etdump;
};

Profile::Profile() : recorder_(std::make_unique<Recorder>()) {}
Profile::~Profile() = default;

Status Profile::CheckAvailable() { return Status(); }

executorch::runtime::EventTracer* Profile::tracer() { return &recorder_->etdump; }

Status Profile::Write(const std::string& path) {
  executorch::etdump::ETDumpResult result = recorder_->etdump.get_etdump_data();
  if (result.buf == nullptr || result.size == 0) {
    return Failure(Error::Internal, "no profiling data was recorded for --etdump=%s", path.c_str());
  }
  FILE* file = std::fopen(path.c_str(), "wb");
  bool ok = file != nullptr && std::fwrite(result.buf, 1, result.size, file) == result.size;
  if (file != nullptr) ok = std::fclose(file) == 0 && ok;
  std::free(result.buf);
  if (!ok) return Failure(Error::AccessFailed, "cannot write --etdump=%s", path.c_str());
  return Status();
}

}  // namespace pteforge
