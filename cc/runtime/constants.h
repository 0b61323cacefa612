// Reading a program's constant methods (MultiMethodExporter.constant in Python): the
// values a .pte carries besides its entry points, e.g. a translator's vocabulary or a
// language model's end-of-sequence ids. Runs on every target.
#ifndef PTEFORGE_CC_RUNTIME_CONSTANTS_H_
#define PTEFORGE_CC_RUNTIME_CONSTANTS_H_

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "cc/runtime/session.h"
#include "cc/runtime/status.h"

namespace pteforge {

// Reads the constant method `name` of `session` into `*out`, which must be of the type
// the exporter stored: std::string (a str, or bytes stored as a uint8 tensor), an
// integer (an int), double (a float), bool, or std::vector<int64_t> (an int64 tensor,
// e.g. a list of ids). `kind` says what the program must be for the constant to exist
// ("a translation model"): a missing constant is an InvalidProgram "the program is not
// <kind>: constant 'name': ..." error; a constant of another type names its type.
Status ReadConstant(Session& session, const char* name, const char* kind, std::string* out);
Status ReadConstant(Session& session, const char* name, const char* kind, int64_t* out);
Status ReadConstant(Session& session, const char* name, const char* kind, double* out);
Status ReadConstant(Session& session, const char* name, const char* kind, bool* out);
Status ReadConstant(Session& session, const char* name, const char* kind, std::vector<int64_t>* out);

// Other integer types (int, size_t fields), through int64_t.
template <typename T, typename = std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool> &&
                                                  !std::is_same_v<T, int64_t>>>
Status ReadConstant(Session& session, const char* name, const char* kind, T* out) {
  int64_t value = 0;
  Status status = ReadConstant(session, name, kind, &value);
  if (status.ok()) *out = static_cast<T>(value);
  return status;
}

}  // namespace pteforge

#endif  // PTEFORGE_CC_RUNTIME_CONSTANTS_H_
