#include "tools/ntpsim/usage_errors.h"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "models/base/yaml_reader.h"

namespace ntpsim::cli {
namespace {

// The named subcommands of `app` (CLI11 keeps option groups as unnamed ones).
std::vector<const CLI::App*> commands(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App* a) { return !a->get_name().empty(); });
}

// "--name" for every long name of `cmd`'s options (help and version flags included).
std::vector<std::string> long_options(const CLI::App& cmd) {
  std::vector<std::string> names;
  for (const CLI::Option* opt : cmd.get_options()) {
    for (const auto& l : opt->get_lnames()) names.push_back("--" + l);
  }
  return names;
}

bool has_option(const CLI::App& cmd, const std::string& name) {
  for (const CLI::Option* opt : cmd.get_options()) {
    for (const auto& l : opt->get_lnames()) {
      if ("--" + l == name) return true;
    }
    for (const auto& s : opt->get_snames()) {
      if ("-" + s == name) return true;
    }
  }
  return false;
}

std::string unknown_option(const CLI::App& app, const CLI::App& cmd, const std::string& word) {
  const std::string name = word.substr(0, word.find('='));  // --opt=value
  std::string text = fmt::format("unknown option '{}'", name);
  // A short option ("-x") is one letter: any other letter is "close", so none is suggested.
  const std::string near = name.size() > 2 ? nearest_key(name, long_options(cmd)) : "";
  if (!near.empty()) return text + fmt::format("; did you mean '{}'?", near);
  std::vector<std::string> owners;
  for (const CLI::App* sub : commands(app)) {
    if (sub != &cmd && has_option(*sub, name)) owners.push_back("'" + sub->get_name() + "'");
  }
  if (!owners.empty()) {
    text += fmt::format("; it is an option of {}", fmt::join(owners, " and "));
  }
  return text;
}

std::string unknown_command(const CLI::App& app, const std::string& word) {
  std::vector<std::string> names;
  for (const CLI::App* sub : commands(app)) names.push_back(sub->get_name());
  const std::string near = nearest_key(word, names);
  if (!near.empty()) return fmt::format("unknown command '{}'; did you mean '{}'?", word, near);
  return fmt::format("unknown command '{}'", word);
}

std::string unexpected_argument(const CLI::App& cmd, const std::string& word) {
  std::vector<std::string> positionals;
  for (const CLI::Option* opt : cmd.get_options()) {
    if (opt->get_positional()) positionals.push_back(opt->get_name());
  }
  if (positionals.empty()) {
    return fmt::format("unexpected argument '{}': {} takes no arguments", word, cmd.get_name());
  }
  return fmt::format("unexpected argument '{}': {} takes {} argument{} ({})", word, cmd.get_name(),
                     positionals.size(), positionals.size() == 1 ? "" : "s",
                     fmt::join(positionals, ", "));
}

}  // namespace

std::string usage_error_message(const CLI::App& app, const CLI::ParseError& error) {
  const std::vector<CLI::App*> chosen = app.get_subcommands();
  const CLI::App& cmd = chosen.empty() ? app : *chosen.front();
  const std::string prefix = chosen.empty() ? "" : cmd.get_name() + ": ";
  const std::string help =
      chosen.empty() ? "ntpsim --help" : fmt::format("ntpsim {} --help", cmd.get_name());
  std::string text = error.what();
  if (dynamic_cast<const CLI::ExtrasError*>(&error) != nullptr) {
    // In command-line order. An unknown option comes first: a word after it is likely its value.
    const std::vector<std::string> extras = app.remaining(true);
    const std::string* option = nullptr;
    for (const auto& w : extras) {
      if (w.size() > 1 && w[0] == '-') {
        option = &w;
        break;
      }
    }
    if (option != nullptr) {
      text = unknown_option(app, cmd, *option);
    } else if (!extras.empty()) {
      text = chosen.empty() ? unknown_command(app, extras.front())
                            : unexpected_argument(cmd, extras.front());
    }
  }
  return fmt::format("{}{} (see '{}')", prefix, text, help);
}

}  // namespace ntpsim::cli
