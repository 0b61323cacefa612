// Text for values and signatures, as pte_run prints them.
#ifndef PTEFORGE_CC_CLI_FORMAT_H_
#define PTEFORGE_CC_CLI_FORMAT_H_

#include <cstddef>
#include <string>

#include "cc/runtime/session.h"
#include "cc/runtime/value.h"

namespace pteforge {

// A value with its type: "float32[2, 3] = [[1, 2, 3], [4, 5, 6]]". Tensors with more
// than `max_elements` elements show the first ones and "...".
std::string FormatValue(const Value& value, size_t max_elements);

// "float32[1..4, 8]" (dynamic dimensions show their bounds), "int", ...
std::string FormatSpec(const ValueSpec& spec);

// "1.5 KB" style sizes.
std::string FormatBytes(size_t bytes);

}  // namespace pteforge

#endif  // PTEFORGE_CC_CLI_FORMAT_H_
