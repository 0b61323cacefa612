// The program a tool opens when no --model is given: a .pte built next to the binary
// and found in its runfiles (cc_tool's default_model, //bazel:cc.bzl).
#ifndef PTEFORGE_CC_CLI_DEFAULT_MODEL_H_
#define PTEFORGE_CC_CLI_DEFAULT_MODEL_H_

#include <string>

namespace pteforge {

// The path of `runfiles_path` ("pteforge/models/x.pte") in the runfiles of the program
// started as `argv0`, or "" when it has none.
std::string FindDefaultModel(const char* argv0, const std::string& runfiles_path);

}  // namespace pteforge

#endif  // PTEFORGE_CC_CLI_DEFAULT_MODEL_H_
