// Helpers for the calibration tests: run a measurement loop into a raw file in memory (through
// a temporary file, exactly as ntpcal writes it) and parse it back.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include "calibrate/raw_csv.h"
#include "calibrate/raw_reader.h"

namespace ntpsim::calibrate::test {

inline std::string scratch_path(const std::string& name) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const auto dir = std::filesystem::path(NTPSIM_BINARY_DIR) / "test-scratch" /
                   (std::string("calibrate.") + info->test_suite_name() + "." + info->name());
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The context a GPU run records, as far as the fitter needs it.
inline RawContext test_context(bool with_sm_count = true) {
  RawContext c;
  c.set("gpu", "TEST-GPU");
  if (with_sm_count) c.set("sm_count", "132");
  c.set("power_limit_default_w", "700");
  c.set("sm_clock_max_mhz", "1980");
  return c;
}

// Runs `loop` against a writer of `kind`, then reads the file back. Fails the test on errors.
inline RawData measure(RawKind kind, const std::function<Status(RawWriter&)>& loop,
                       bool with_sm_count = true, const std::string& name = "") {
  const std::string path = scratch_path(name.empty() ? std::string(to_string(kind)) + ".csv" : name);
  {
    auto w = RawWriter::open(path, kind, test_context(with_sm_count));
    EXPECT_TRUE(w.ok());
    const Status s = loop(*w);
    EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
  }
  auto data = read_raw_file(path);
  EXPECT_TRUE(data.ok()) << (data.ok() ? "" : data.error().message);
  return data.ok() ? *data : RawData{};
}

}  // namespace ntpsim::calibrate::test
