// The shared harness of the CLI tests: runs the built `ntpsim` (NTPSIM_BIN) as a user would, in a
// scratch working folder per test, and captures its exit code, stdout and stderr (written to
// files beside, not inside, the working folder, so "nothing written" checks see only ntpsim's own
// output). Each test file derives its fixture from CliTest with its own scratch-name prefix.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace ntpsim::cli_test {

namespace fs = std::filesystem;

struct RunResult {
  int exit_code = -1;  // -1: killed by a signal
  std::string out;
  std::string err;
};

inline std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class CliTest : public ::testing::Test {
 protected:
  explicit CliTest(std::string prefix) : prefix_(std::move(prefix)) {}

  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(NTPSIM_BINARY_DIR) / "test-scratch" / (prefix_ + "." + info->name());
    fs::remove_all(dir_);
    fs::create_directories(work());
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // Runs `ntpsim <args>` (args as shell words) in work().
  RunResult run(const std::string& args) const {
    const std::string cmd = "cd '" + work().string() + "' && '" NTPSIM_BIN "' " + args + " > '" +
                            (dir_ / "out.txt").string() + "' 2> '" +
                            (dir_ / "err.txt").string() + "'";
    const int status = std::system(cmd.c_str());
    RunResult r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = read_text(dir_ / "out.txt");
    r.err = read_text(dir_ / "err.txt");
    return r;
  }

  fs::path work() const { return dir_ / "work"; }
  bool work_is_empty() const { return fs::is_empty(work()); }

  fs::path dir_;

 private:
  std::string prefix_;
};

}  // namespace ntpsim::cli_test
