// The call language of pte_run: method calls with literal arguments, as text.
//
//   call    := method "(" [value ("," value)*] ")"
//   value   := tensor | scalar
//   tensor  := maker shape [":" dtype]          zeros[4,8]  ones[2]:int64  full(2.5)[3,8]
//   maker   := "zeros" | "ones" | "arange"      arange: 0, 1, 2, ... in row-major order
//            | "full(" number ")"
//            | "values(" number ("," number)* ")"   the elements, row-major
//   shape   := "[" [int ("," int)*] "]"          [] is a 0-d tensor
//   scalar  := int | float | "true" | "false"
//   dtype   := float32 (default) | float64 | int64 | int32 | int16 | int8 | uint8 | bool
//
// A calls file has one call per line; blank lines and lines starting with '#' are
// skipped.
#ifndef PTEFORGE_CC_CLI_CALLS_H_
#define PTEFORGE_CC_CLI_CALLS_H_

#include <string>
#include <vector>

#include "cc/runtime/status.h"
#include "cc/runtime/value.h"

namespace pteforge {

struct Call {
  std::string method;
  std::vector<Value> args;
  std::string text;  // as written, for messages
};

// Parses one call; the error points at the offending character.
StatusOr<Call> ParseCall(const std::string& text);

// Parses one value (a tensor literal or a scalar), the whole of `text`.
StatusOr<Value> ParseValue(const std::string& text);

// The literal ParseValue reads back as exactly `value`: values(...)[shape]:dtype with
// 9 significant digits for float32 and 17 for float64, or a scalar. "none" for None;
// strings are not values of this language and come back quoted, for printing only.
std::string ValueLiteral(const Value& value);

// Parses a calls file's contents; errors name the line.
StatusOr<std::vector<Call>> ParseCallsFile(const std::string& contents);

}  // namespace pteforge

#endif  // PTEFORGE_CC_CLI_CALLS_H_
