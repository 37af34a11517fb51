// The `ntpsim` subcommand frame: each subcommand is one file that defines a `Command` and
// registers it with NTPSIM_REGISTER_COMMAND (plus its line in tools/CMakeLists.txt).
//
// main() builds a CLI11 app, lets every registered command add its subcommand and options, parses,
// then runs the chosen one. Commands return an exit code: 0 ok, 1 runtime failure, 2 bad input.
// They print errors through report_error() so every message has the same shape.
// The registry is filled during static initialisation and read-only afterwards.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "models/base/status.h"

namespace ntpsim::cli {

class Command {
 public:
  virtual ~Command() = default;
  // Adds the subcommand and its options to `app`; returns the subcommand.
  virtual CLI::App* setup(CLI::App& app) = 0;
  // Runs after a successful parse when this subcommand was chosen.
  virtual int run() = 0;
};

using CommandFactory = std::function<std::unique_ptr<Command>()>;

// Registration (static initialisation only). Returns true so it can initialise a static.
bool register_command(const char* name, CommandFactory factory);
// Commands in registration-name order (deterministic help output).
std::vector<std::pair<std::string, CommandFactory>> registered_commands();

// Prints "ntpsim: error: <message>" to stderr and returns the error's exit code.
int report_error(const Error& error);

// The transform for options read into unsigned integers (`->transform(unsigned_decimal(max))` on
// --seed): CLI11 2.1 converts them with strtoull in base 0, which takes "-1" as 2^64-1, saturates
// on overflow and reads "010" as octal. This accepts only decimal digits of a value in [0, max],
// and hands CLI11 the number without leading zeros.
CLI::Validator unsigned_decimal(uint64_t max);

}  // namespace ntpsim::cli

// Use inside `namespace ntpsim::cli { namespace { ... } }`, after the command's class.
#define NTPSIM_REGISTER_COMMAND(NAME, TYPE)                                              \
  [[maybe_unused]] const bool ntpsim_registered_##TYPE = ::ntpsim::cli::register_command( \
      NAME, [] { return std::unique_ptr<::ntpsim::cli::Command>(new TYPE()); });
