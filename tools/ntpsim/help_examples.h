// The "Examples:" section at the end of every subcommand's --help (1-3 command lines each), kept
// in one table so that a test (tests/cli/help_cli_test.cpp) can hold every example to the
// behaviour: each one parses, names options the command has, files that exist, and scenario
// fields the loader accepts. Thread safety: pure.
#pragma once

#include <string>

namespace ntpsim::cli {

// The --help footer for subcommand `command` ("" when it has none).
std::string help_examples(const std::string& command);

}  // namespace ntpsim::cli
