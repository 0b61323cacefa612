#include "cc/runtime/status.h"

#include <cstdarg>
#include <cstdio>

namespace pteforge {

std::string Status::ToString() const {
  if (ok()) return "ok";
  char code[32];
  std::snprintf(code, sizeof(code), " (ExecuTorch error 0x%x)", static_cast<unsigned>(code_));
  return message_ + code;
}

Status Failure(Error code, const char* format, ...) {
  va_list args;
  va_start(args, format);
  va_list copy;
  va_copy(copy, args);
  int length = std::vsnprintf(nullptr, 0, format, copy);
  va_end(copy);
  std::string message(length > 0 ? length : 0, '\0');
  if (length > 0) std::vsnprintf(message.data(), message.size() + 1, format, args);
  va_end(args);
  return Status(code, std::move(message));
}

}  // namespace pteforge
