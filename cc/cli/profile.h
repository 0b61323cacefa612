// An ExecuTorch profile (ETDump) of a Session's calls, for the tools' --etdump flag.
//
// The wheel's runtime has ExecuTorch's devtools; the runtime built from source here
// does not (its tree has no devtools/), so there a Profile is unavailable and asking
// for one is an error the tools report, rather than a build without the flag.
#ifndef PTEFORGE_CC_CLI_PROFILE_H_
#define PTEFORGE_CC_CLI_PROFILE_H_

#include <memory>
#include <string>

#include <executorch/runtime/core/event_tracer.h>

#include "cc/runtime/status.h"

namespace pteforge {

class Profile {
 public:
  Profile();
  ~Profile();
  Profile(const Profile&) = delete;
  Profile& operator=(const Profile&) = delete;

  // OK when this build can record profiles; otherwise the error to report for --etdump
  // (checked before any work, so a run does not end in a profile it cannot write).
  static Status CheckAvailable();

  // The tracer to give SessionOptions::event_tracer; nullptr when unavailable.
  executorch::runtime::EventTracer* tracer();

  // Writes what was recorded to `path` (an .etdp file).
  Status Write(const std::string& path);

 private:
  struct Recorder;
  std::unique_ptr<Recorder> recorder_;
};

}  // namespace pteforge

#endif  // PTEFORGE_CC_CLI_PROFILE_H_
