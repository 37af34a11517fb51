// Shared helpers for the reports tests: the small fixture results and a scratch folder.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "reports/results.h"

namespace ntpsim::reports::testing {

inline std::string fixture_path(const std::string& name) {
  return std::string(NTPSIM_SOURCE_DIR) + "/tests/reports/fixtures/" + name;
}

// The hand-made fixture (tests/reports/fixtures/small.json); fails the test if it does not load.
inline Results small_results() {
  auto r = load_results(fixture_path("small.json"));
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? std::move(r).value() : Results{};
}

// A fresh empty folder under the test temp dir, named after the running test.
inline std::filesystem::path scratch_dir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  auto dir = std::filesystem::path(::testing::TempDir()) /
             (std::string("ntpsim_reports_") + info->test_suite_name() + "_" + info->name());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace ntpsim::reports::testing
