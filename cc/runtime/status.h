// Status and StatusOr: an ExecuTorch Error code plus a message saying what went wrong,
// where, and how to fix it. ExecuTorch's own Result<T> carries only the code; the
// Session's callers (pte_run, the translator, tests) need the words too.
//
// No exceptions: every fallible call returns one of these. Thread-compatible.
#ifndef PTEFORGE_CC_RUNTIME_STATUS_H_
#define PTEFORGE_CC_RUNTIME_STATUS_H_

#include <string>
#include <utility>
#include <variant>

#include <executorch/runtime/core/error.h>

namespace pteforge {

using executorch::runtime::Error;

class [[nodiscard]] Status {
 public:
  // Success.
  Status() = default;
  Status(Error code, std::string message) : code_(code), message_(std::move(message)) {}

  bool ok() const { return code_ == Error::Ok; }
  Error code() const { return code_; }
  const std::string& message() const { return message_; }
  // "message (ExecuTorch error 0x12)" for printing.
  std::string ToString() const;

 private:
  Error code_ = Error::Ok;
  std::string message_;
};

// A value or the Status explaining why there is none.
template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(T value) : state_(std::move(value)) {}  // NOLINT: implicit by design
  StatusOr(Status status) : state_(std::move(status)) {}  // NOLINT: must not be ok

  bool ok() const { return std::holds_alternative<T>(state_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(state_);
  }
  T& value() & { return std::get<T>(state_); }
  const T& value() const& { return std::get<T>(state_); }
  T&& value() && { return std::get<T>(std::move(state_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }

 private:
  std::variant<T, Status> state_;
};

// Formats a printf-style message into a Status.
Status Failure(Error code, const char* format, ...) __attribute__((format(printf, 2, 3)));

}  // namespace pteforge

// Returns early with the Status of `expr` if it is not ok.
#define PTEFORGE_RETURN_IF_ERROR(expr)          \
  do {                                          \
    ::pteforge::Status _pteforge_status = (expr); \
    if (!_pteforge_status.ok()) return _pteforge_status; \
  } while (0)

#endif  // PTEFORGE_CC_RUNTIME_STATUS_H_
