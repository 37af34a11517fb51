// ntpsim: the command-line entry point. Subcommands live one per file (command.h).
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <map>

#include "models/base/build_info.h"
#include "tools/ntpsim/command.h"
#include "tools/ntpsim/help_examples.h"
#include "tools/ntpsim/usage_errors.h"

namespace ntpsim::cli {
namespace {

std::map<std::string, CommandFactory>& registry() {
  // Filled only during static initialisation by NTPSIM_REGISTER_COMMAND; read-only afterwards.
  static std::map<std::string, CommandFactory> commands;  // NOLINT: init-time registry
  return commands;
}

}  // namespace

int run_main(int argc, char** argv);

bool register_command(const char* name, CommandFactory factory) {
  registry().emplace(name, std::move(factory));
  return true;
}

std::vector<std::pair<std::string, CommandFactory>> registered_commands() {
  return {registry().begin(), registry().end()};
}

int report_error(const Error& error) {
  std::fprintf(stderr, "ntpsim: error: %s\n", error.message.c_str());
  return static_cast<int>(error.exit_code);
}

CLI::Validator unsigned_decimal(uint64_t max) {
  return CLI::Validator(
      [max](std::string& text) -> std::string {
        uint64_t value = 0;
        const char* end = text.data() + text.size();
        const auto [ptr, ec] = std::from_chars(text.data(), end, value);
        const bool digits =
            !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
        if (!digits || ec != std::errc() || ptr != end || value > max) {
          return fmt::format("'{}' is not a whole number in [0, {}]", text, max);
        }
        text = std::to_string(value);  // "010" is ten, not CLI11's octal eight
        return "";
      },
      "UINT64");
}

// A command whose printed output did not reach its destination failed, whatever it returned: a
// full disk or a closed pipe behind stdout (`ntpsim check s.yaml > /dev/full`) is exit 1 with a
// message, never a silent 0.
int finish_streams(int rc) {
  if (std::fflush(stdout) != 0 || std::ferror(stdout) != 0) {
    const int err = errno;
    std::fprintf(stderr, "ntpsim: error: cannot write the standard output: %s\n",
                 std::strerror(err != 0 ? err : EIO));
    std::fflush(stderr);
    return rc == 0 ? 1 : rc;
  }
  if (std::fflush(stderr) != 0 || std::ferror(stderr) != 0) return rc == 0 ? 1 : rc;
  return rc;
}

}  // namespace ntpsim::cli

int main(int argc, char** argv) {
  return ntpsim::cli::finish_streams(ntpsim::cli::run_main(argc, argv));
}

int ntpsim::cli::run_main(int argc, char** argv) {
  using namespace ntpsim;
  try {
    CLI::App app{"ntpsim: LLM-training goodput under GPU failures (checkpoint-restart, DP drop, "
                 "spares, nonuniform TP, power boosting)"};
    app.require_subcommand(0, 1);
    // Hidden: parse the command line and stop (exit 0) before the command runs; lets a test hold
    // every --help example to the parser (tests/cli/help_cli_test.cpp).
    bool parse_only = false;
    app.add_flag("--parse-only", parse_only)->group("");
    const auto& bi = build_info();
    app.set_version_flag("--version",
                         fmt::format("ntpsim {} (git {}, {} build)", bi.version, bi.git_sha,
                                     bi.build_type));
    std::vector<std::pair<CLI::App*, std::unique_ptr<cli::Command>>> commands;
    for (auto& [name, factory] : cli::registered_commands()) {
      auto cmd = factory();
      CLI::App* sub = cmd->setup(app);
      sub->footer(cli::help_examples(name));
      commands.emplace_back(sub, std::move(cmd));
    }
    try {
      app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
      // --help and --version print as CLI11 does (exit 0). Every usage error is bad input (exit
      // 2) with one message of the same shape as the commands' errors (usage_errors.h).
      if (e.get_exit_code() == 0) return app.exit(e);
      std::fprintf(stderr, "ntpsim: error: %s\n", cli::usage_error_message(app, e).c_str());
      return 2;
    }
    if (parse_only) return 0;
    for (auto& [sub, cmd] : commands) {
      if (sub->parsed()) return cmd->run();
    }
    std::fputs(app.help().c_str(), stdout);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ntpsim: error: %s\n", e.what());
    return 1;
  } catch (...) {
    std::fprintf(stderr, "ntpsim: error: unknown internal error\n");
    return 1;
  }
}
