// Error values for every boundary of ntpsim (files, YAML, traces, fits, CUDA/NCCL calls).
//
// An `Error` carries one human-readable message and the exit code the CLI should return for it:
// 2 for bad input (malformed YAML, unknown keys, bad units, broken traces, missing files),
// 1 for runtime failures. `Result<T>` holds either a value or an `Error`; there are no exceptions
// across component boundaries and no exit() below main.
//
// Thread safety: plain values; safe to copy between threads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace ntpsim {

// Where a value came from: a file and a 1-based line and column (0 when unknown).
struct SourceLocation {
  std::string file;
  int line = 0;
  int column = 0;

  // "file:line:col", "file:line", or "file" depending on what is known.
  std::string to_string() const;
  bool operator==(const SourceLocation&) const = default;
};

enum class ExitCode : int { kOk = 0, kRuntime = 1, kBadInput = 2 };

struct Error {
  std::string message;
  ExitCode exit_code = ExitCode::kBadInput;

  // "file:line:col: field.path: what is wrong" — the one format every bad-input message uses.
  static Error at(const SourceLocation& where, const std::string& field_path,
                  const std::string& what);
  static Error bad_input(std::string what) { return Error{std::move(what), ExitCode::kBadInput}; }
  static Error runtime(std::string what) { return Error{std::move(what), ExitCode::kRuntime}; }
};

// A value or an error. Deliberately small: ok(), value(), error(), and operator bool.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  Result(Error error) : v_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return std::holds_alternative<T>(v_); }
  explicit operator bool() const { return ok(); }

  // REQUIRES: ok()
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &std::get<T>(v_); }
  const T* operator->() const { return &std::get<T>(v_); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  // REQUIRES: !ok()
  const Error& error() const { return std::get<Error>(v_); }

 private:
  std::variant<T, Error> v_;
};

// Success or an error, for operations without a value.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)) {}  // NOLINT(google-explicit-constructor)
  static Status Ok() { return Status(); }

  bool ok() const { return !error_.has_value(); }
  explicit operator bool() const { return ok(); }
  // REQUIRES: !ok()
  const Error& error() const { return *error_; }

 private:
  std::optional<Error> error_;
};

}  // namespace ntpsim

// Propagate an error from an expression yielding Status or Result<T>.
#define NTPSIM_RETURN_IF_ERROR(expr)              \
  do {                                            \
    auto ntpsim_status_ = (expr);                 \
    if (!ntpsim_status_.ok()) return ntpsim_status_.error(); \
  } while (false)
