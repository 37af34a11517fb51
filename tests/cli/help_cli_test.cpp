// Every subcommand's --help against the behaviour of the built `ntpsim` (cli_harness.h): each
// help ends with 1-3 examples; each example parses (`ntpsim --parse-only ...`, the hidden flag
// that stops before the command runs); every option named anywhere in a help text is an option
// of that command; every repository file an example names exists; and every scenario field an
// example sets (--set, each --vary value) is accepted by the loader (`ntpsim check`).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli_harness.h"
#include "tests/fixtures/tiny_job.h"

namespace {

namespace fs = std::filesystem;

using ntpsim::cli_test::CliTest;
using ntpsim::cli_test::RunResult;

class HelpCli : public CliTest {
 protected:
  HelpCli() : CliTest("help_cli") {}

  // The subcommands listed by `ntpsim --help`.
  std::vector<std::string> commands() const {
    const RunResult r = run("--help");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::vector<std::string> names;
    const auto at = r.out.find("Subcommands:\n");
    EXPECT_NE(at, std::string::npos) << r.out;
    std::istringstream in(r.out.substr(at + 13));
    std::string line;
    while (std::getline(in, line) && line.rfind("  ", 0) == 0) {
      std::istringstream words(line);
      std::string name;
      words >> name;
      names.push_back(name);
    }
    return names;
  }

  // The example lines (after "Examples:") of `ntpsim <command> --help`, without "ntpsim ".
  static std::vector<std::string> examples(const std::string& help) {
    std::vector<std::string> out;
    const auto at = help.find("\nExamples:\n");
    if (at == std::string::npos) return out;
    std::istringstream in(help.substr(at + 11));
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("  ntpsim ", 0) == 0) out.push_back(line.substr(9));
    }
    return out;
  }

  static std::vector<std::string> words(const std::string& text) {
    std::istringstream in(text);
    std::vector<std::string> w;
    for (std::string s; in >> s;) w.push_back(s);
    return w;
  }
};

TEST_F(HelpCli, EverySubcommandHelpHasExamplesThatParse) {
  const auto names = commands();
  ASSERT_GE(names.size(), 10u);
  for (const auto& name : names) {
    const RunResult help = run(name + " --help");
    ASSERT_EQ(help.exit_code, 0) << name << ": " << help.err;
    const auto ex = examples(help.out);
    EXPECT_GE(ex.size(), 1u) << name << " --help has no examples:\n" << help.out;
    EXPECT_LE(ex.size(), 3u) << name;
    for (const auto& e : ex) {
      EXPECT_EQ(e.rfind(name + " ", 0) == 0 || e == name, true) << name << ": " << e;
      const RunResult parsed = run("--parse-only " + e);
      EXPECT_EQ(parsed.exit_code, 0) << "ntpsim " << e << "\n" << parsed.err;
      EXPECT_EQ(parsed.out, "") << e;
    }
  }
}

TEST_F(HelpCli, ParseOnlyStillRefusesWhatTheParserRefuses) {
  // The check above can fail: a wrong option or value is caught without running anything.
  EXPECT_EQ(run("--parse-only run s.yaml --replication 5").exit_code, 2);
  EXPECT_EQ(run("--parse-only report r.json -o r.pdf --format pdf").exit_code, 2);
  EXPECT_TRUE(work_is_empty());
}

TEST_F(HelpCli, EveryOptionNamedInAHelpExists) {
  for (const auto& name : commands()) {
    const std::string help = run(name + " --help").out;
    // The options the command defines: the "Options:" lines start with them.
    std::set<std::string> defined;
    const std::regex def(R"(^  (-\w)?,?(--[\w-]+)?)");
    std::istringstream in(help);
    for (std::string line; std::getline(in, line);) {
      std::smatch m;
      if (std::regex_search(line, m, def)) {
        if (m[1].matched) defined.insert(m[1]);
        if (m[2].matched) defined.insert(m[2]);
      }
    }
    const std::regex named(R"((^|[\s(`])(--[a-z][\w-]*))");
    for (auto it = std::sregex_iterator(help.begin(), help.end(), named);
         it != std::sregex_iterator(); ++it) {
      const std::string opt = (*it)[2];
      EXPECT_TRUE(defined.count(opt) == 1)
          << name << " --help names " << opt << ", which it does not define:\n"
          << help;
    }
  }
}

TEST_F(HelpCli, ExampleFilesExistAndScenarioFieldsAreAccepted) {
  for (const auto& name : commands()) {
    for (const auto& e : examples(run(name + " --help").out)) {
      const auto w = words(e);
      std::string scenario;
      std::string sets;                 // every --set, applied together
      std::vector<std::string> varied;  // each --vary value, one at a time with the --sets
      for (size_t i = 1; i < w.size(); ++i) {
        const bool value_of_option = w[i - 1].rfind("-", 0) == 0;
        // Repository paths (with a '/') that the example reads exist.
        if (w[i].find('/') != std::string::npos && w[i][0] != '-' && !value_of_option) {
          EXPECT_TRUE(fs::exists(fs::path(NTPSIM_SOURCE_DIR) / w[i])) << e << ": " << w[i];
          if (scenario.empty() && w[i].rfind("scenarios/", 0) == 0 &&
              w[i].rfind("scenarios/plans/", 0) != 0) {
            scenario = w[i];
          }
        }
        if (w[i - 1] == "--set") sets += " --set " + w[i];
        if (w[i - 1] == "--vary") {
          // path=v1,v2,... or path=a:b:step: each listed value, or the range's ends.
          const auto eq = w[i].find('=');
          ASSERT_NE(eq, std::string::npos) << e;
          const std::string path = w[i].substr(0, eq);
          std::string values = w[i].substr(eq + 1);
          const char sep = values.find(':') != std::string::npos ? ':' : ',';
          std::istringstream vs(values);
          std::vector<std::string> list;
          for (std::string v; std::getline(vs, v, sep);) list.push_back(v);
          if (sep == ':') list.pop_back();  // the step
          for (const auto& v : list) varied.push_back(" --set " + path + "=" + v);
        }
      }
      if (scenario.empty()) continue;
      if (varied.empty()) varied.push_back("");
      for (const auto& v : varied) {
        const RunResult r = run("check '" NTPSIM_SOURCE_DIR "/" + scenario + "'" + sets + v);
        EXPECT_EQ(r.exit_code, 0) << e << ":" << sets << v << "\n" << r.err;
      }
    }
  }
}

// Output to a pipe or file: no progress line (no carriage returns), one "ntpsim: wrote FILE" line
// per file written, on stderr; -q prints neither.
TEST_F(HelpCli, PipedCommandsShowNoProgressAndNameTheirFiles) {
  {
    std::ofstream s(work() / "s.yaml");
    s << "name: tiny\n"
      << ntpsim::test_fixtures::kTinyJob << "horizon: \"2d\"\n"
      << "replications: 2\nseed: 7\n";
  }
  const RunResult r = run("run s.yaml --threads 2 --out r.json --csv r.csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find('\r'), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("ntpsim: wrote r.json\nntpsim: wrote r.csv\n"), std::string::npos) << r.err;
  const RunResult sweep = run("sweep s.yaml --vary seed=1,2 --threads 2 --out w.json");
  ASSERT_EQ(sweep.exit_code, 0) << sweep.err;
  EXPECT_EQ(sweep.err.find('\r'), std::string::npos) << sweep.err;
  EXPECT_NE(sweep.err.find("ntpsim: wrote w.json\n"), std::string::npos) << sweep.err;
  const RunResult quiet = run("run s.yaml -q --threads 2 --out q.json");
  ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_EQ(quiet.err, "");
  EXPECT_EQ(quiet.out, "");
}

}  // namespace
