#include "cc/cli/default_model.h"

#include <memory>

#include "tools/cpp/runfiles/runfiles.h"

namespace pteforge {

std::string FindDefaultModel(const char* argv0, const std::string& runfiles_path) {
  std::string error;
  std::unique_ptr<bazel::tools::cpp::runfiles::Runfiles> runfiles(
      bazel::tools::cpp::runfiles::Runfiles::Create(argv0, &error));
  return runfiles ? runfiles->Rlocation(runfiles_path) : "";
}

}  // namespace pteforge
