// The shared harness of the CLI tests: runs the built `ntpsim` (NTPSIM_BIN) as a user would, in a
// scratch working folder per test, and captures its exit code, stdout and stderr (written to
// files beside, not inside, the working folder, so "nothing written" checks see only ntpsim's own
// output). Each test file derives its fixture from CliTest with its own scratch-name prefix.
#pragma once

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

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
    return run_command("'" NTPSIM_BIN "' " + args);
  }

  // Runs the shell command line `command` in work(), capturing its streams.
  RunResult run_command(const std::string& command) const {
    const std::string cmd = "cd '" + work().string() + "' && " + command + " > '" +
                            (dir_ / "out.txt").string() + "' 2> '" +
                            (dir_ / "err.txt").string() + "'";
    const int status = std::system(cmd.c_str());
    RunResult r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = read_text(dir_ / "out.txt");
    r.err = read_text(dir_ / "err.txt");
    return r;
  }

  // Starts `ntpsim args...` in work(), waits until `ready()` holds (polled every 5 ms, 120 s at
  // most), sends `signo`, and waits for the exit (120 s at most). stdout is discarded.
  RunResult interrupt_when(const std::vector<std::string>& args, int signo,
                           const std::function<bool()>& ready) const {
    const std::string err_path = (dir_ / "err.txt").string();
    const pid_t pid = fork();
    if (pid == 0) {
      if (chdir(work().c_str()) != 0) _exit(99);
      if (!freopen(err_path.c_str(), "w", stderr) || !freopen("/dev/null", "w", stdout)) _exit(98);
      std::vector<char*> argv;
      argv.push_back(const_cast<char*>(NTPSIM_BIN));
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      execv(NTPSIM_BIN, argv.data());
      _exit(97);
    }
    int status = 0;
    bool exited = false;
    for (int i = 0; i < 24000 && !ready(); ++i) {
      if (waitpid(pid, &status, WNOHANG) == pid) {
        exited = true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (exited) {
      ADD_FAILURE() << "ntpsim exited before the signal could be sent";
    } else {
      kill(pid, signo);
      for (int i = 0; i < 1200; ++i) {
        if (waitpid(pid, &status, WNOHANG) == pid) {
          exited = true;
          break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    }
    if (!exited) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      ADD_FAILURE() << "ntpsim did not stop within 120 s of the signal";
      return RunResult{};
    }
    RunResult o;
    o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    o.err = read_text(err_path);
    return o;
  }

  // interrupt_when() with the signal sent 2 s after the start.
  RunResult interrupt(const std::vector<std::string>& args, int signo) const {
    const auto start = std::chrono::steady_clock::now();
    return interrupt_when(args, signo, [start] {
      return std::chrono::steady_clock::now() - start >= std::chrono::seconds(2);
    });
  }

  fs::path work() const { return dir_ / "work"; }
  bool work_is_empty() const { return fs::is_empty(work()); }

  fs::path dir_;

 private:
  std::string prefix_;
};

}  // namespace ntpsim::cli_test
