// Helpers shared by the libFuzzer targets in tests/fuzz (one executable per parser, see README.md).
//
// A target feeds the fuzzer's bytes to one ntpsim parser and checks the properties every parser
// promises: it returns (never crashes, throws or hangs), an error is bad input (exit code 2) with a
// message, and an accepted value survives its own printer (format -> parse). A broken property
// aborts through FUZZ_REQUIRE, which libFuzzer records as a crash with the input that caused it.
// Scratch files live in a per-process folder under $TMPDIR, so parallel fuzzers do not collide.
// Thread safety: libFuzzer calls each target from one thread.
#pragma once

#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "models/base/status.h"

#define FUZZ_REQUIRE(cond, detail)                                                           \
  do {                                                                                       \
    if (!(cond)) {                                                                           \
      std::fprintf(stderr, "fuzz: %s:%d: property violated: %s\n  %s\n", __FILE__, __LINE__, \
                   #cond, std::string(detail).c_str());                                      \
      std::abort();                                                                          \
    }                                                                                        \
  } while (false)

namespace ntpsim::fuzz {

inline std::string_view as_text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// An Error must be bad input with a non-empty message: parsers report, they do not fail at runtime.
inline void require_bad_input(const Error& e) {
  FUZZ_REQUIRE(e.exit_code == ExitCode::kBadInput, e.message);
  FUZZ_REQUIRE(!e.message.empty(), "empty error message");
}

// True when a and b agree to `rel` relative tolerance (both finite).
inline bool close(double a, double b, double rel) {
  return std::fabs(a - b) <= rel * std::fmax(std::fabs(a), std::fabs(b));
}

// This process's scratch folder, created on first use: $TMPDIR/ntpsim-fuzz-<pid>.
inline const std::filesystem::path& scratch_dir() {
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() /
             ("ntpsim-fuzz-" + std::to_string(static_cast<long>(::getpid())));
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}

// Replaces `path` with exactly `data`. Aborts when the scratch folder is not writable (not a
// finding in the code under test, but nothing can be fuzzed then).
inline void write_file(const std::filesystem::path& path, std::string_view data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  FUZZ_REQUIRE(out.good(), "cannot write scratch file " + path.string());
}

// Two-file inputs (the scenario and plan targets): the text before a line "#--- base.yaml" is
// written to scratch_dir()/main.yaml, the text after it to base.yaml beside it (empty when the
// line is absent), so `include:` or `base:` can name a second fuzzed file. Returns main.yaml.
inline constexpr std::string_view kBaseSplit = "#--- base.yaml\n";
inline std::filesystem::path write_main_and_base(std::string_view text) {
  const auto& dir = scratch_dir();
  const size_t split = text.find(kBaseSplit);
  write_file(dir / "main.yaml", text.substr(0, split));
  write_file(dir / "base.yaml", split == std::string_view::npos
                                    ? std::string_view()
                                    : text.substr(split + kBaseSplit.size()));
  return dir / "main.yaml";
}

}  // namespace ntpsim::fuzz
