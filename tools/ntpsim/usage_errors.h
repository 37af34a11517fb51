// The one-line message for a command-line usage error (a CLI11 parse error other than --help and
// --version), in the shape of every other ntpsim error once main() prefixes "ntpsim: error: ".
//
// CLI11 reports an unknown option or command as "The following arguments were not expected: 5
// --replication" (the words reversed, the option's value listed as a second unknown). Instead:
//   run: unknown option '--replication'; did you mean '--replications'? (see 'ntpsim run --help')
//   unknown command 'rnu'; did you mean 'run'? (see 'ntpsim --help')
//   run: unexpected argument 'b': run takes 1 argument (scenario) (see 'ntpsim run --help')
// Suggestions come from models/base's nearest_key (the same edit distance and closeness rule as
// the "did you mean" of strict YAML reading), among the names the chosen command accepts; an
// option that belongs to other commands instead is named with them. Every other parse error keeps
// CLI11's text, prefixed with the command. Thread safety: pure functions of the parsed app.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace ntpsim::cli {

// `app`: the top-level app after parse() threw `error` (its parsed subcommand, if any, is the one
// the user chose).
std::string usage_error_message(const CLI::App& app, const CLI::ParseError& error);

}  // namespace ntpsim::cli
