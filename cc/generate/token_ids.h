// Token ids as text ("1 450 4996"): how tools and microcontroller images take prompts
// and print generations when no tokenizer is at hand. Any target.
#ifndef PTEFORGE_CC_GENERATE_TOKEN_IDS_H_
#define PTEFORGE_CC_GENERATE_TOKEN_IDS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cc/runtime/status.h"

namespace pteforge {

// Ids separated by spaces, tabs or line ends; anything else is an error naming it.
StatusOr<std::vector<int64_t>> ParseTokenIds(std::string_view text);

// The ids separated by single spaces.
std::string FormatTokenIds(const std::vector<int64_t>& ids);

// One id sequence per non-empty line of the file at `path` (with std::fopen: on a
// microcontroller, a host file through semihosting). Errors name the line.
StatusOr<std::vector<std::vector<int64_t>>> ReadTokenIdLines(const char* path);

}  // namespace pteforge

#endif  // PTEFORGE_CC_GENERATE_TOKEN_IDS_H_
