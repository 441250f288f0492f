// Status and Expected<T>: how library code reports failure. Only the CLI turns
// a Status into an exit code; library code never prints and never exits.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace npugap {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // bad user input: file, model, flag, shape
  kNotFound,         // a named file, value or node does not exist
  kUnsupported,      // valid input that npugap does not implement (op, dtype, attribute)
  kIoError,          // reading or writing a file failed
  kInternal,         // a bug in npugap
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return {}; }
  static Status InvalidArgument(std::string m) { return {StatusCode::kInvalidArgument, std::move(m)}; }
  static Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
  static Status Unsupported(std::string m) { return {StatusCode::kUnsupported, std::move(m)}; }
  static Status IoError(std::string m) { return {StatusCode::kIoError, std::move(m)}; }
  static Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // Prefixes context ("model.onnx: node 'conv1': ") so the one-line error names where it happened.
  Status WithContext(const std::string& context) const {
    if (ok()) return *this;
    return {code_, context + ": " + message_};
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

template <typename T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : v_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  Expected(Status status) : v_(std::move(status)) {  // NOLINT(google-explicit-constructor)
    assert(!std::get<Status>(v_).ok() && "Expected<T> built from an OK status");
  }

  bool ok() const { return std::holds_alternative<T>(v_); }
  explicit operator bool() const { return ok(); }
  const Status& status() const {
    static const Status kOkStatus;
    return ok() ? kOkStatus : std::get<Status>(v_);
  }
  T& value() & { assert(ok()); return std::get<T>(v_); }
  const T& value() const& { assert(ok()); return std::get<T>(v_); }
  T&& value() && { assert(ok()); return std::get<T>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace npugap

#define NPUGAP_CONCAT_INNER(a, b) a##b
#define NPUGAP_CONCAT(a, b) NPUGAP_CONCAT_INNER(a, b)

// Returns the status from the enclosing function when it is not OK.
#define NPUGAP_RETURN_IF_ERROR(expr)          \
  do {                                        \
    ::npugap::Status npugap_status_ = (expr); \
    if (!npugap_status_.ok()) return npugap_status_; \
  } while (0)

// `NPUGAP_ASSIGN_OR_RETURN(auto x, MakeX());` unwraps an Expected or returns its status.
#define NPUGAP_ASSIGN_OR_RETURN(lhs, expr) \
  NPUGAP_ASSIGN_OR_RETURN_IMPL(NPUGAP_CONCAT(npugap_expected_, __LINE__), lhs, expr)
#define NPUGAP_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                 \
  if (!tmp.ok()) return tmp.status();                \
  lhs = std::move(tmp).value()
