// Fuzz finding (fuzz_plan): a plan whose `base:` was one path component longer than the OS allows
// (a folded multi-line string, over 255 bytes) made std::filesystem::exists throw
// filesystem_error ("File name too long") out of read_plan, which terminated `ntpsim plan`.
// read_plan now asks with an error_code and reports such a path as bad input at `base`
// (PlanBaseFiles.OverlongNameIsBadInput below). The fuzzer's own input also holds a NUL byte, which
// the YAML reader now refuses first, at its line: still one bad-input message, never a crash.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "sim/planner/plan.h"

namespace ntpsim::sim {
namespace {

namespace fs = std::filesystem;

// The crashing input from fuzz_plan, byte for byte (a mutated planner-test plan).
TEST(PlanBase, ReproducerIsBadInput) {
  const std::string path =
      std::string(NTPSIM_SOURCE_DIR) + "/tests/fuzz_regressions/inputs/plan_base_name_too_long.yaml";
  const Result<Plan> p = read_plan(path);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().exit_code, ExitCode::kBadInput);
  EXPECT_NE(p.error().message.find(path + ":10:14: a NUL byte"), std::string::npos)
      << p.error().message;
}

class PlanBaseFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("ntpsim_fuzz_plan_base_" +
            std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  Result<Plan> read_with_base(const std::string& base) {
    const std::string path = (dir_ / "plan.yaml").string();
    std::ofstream(path) << "base: " << base << R"(
search: {domains: [4], strategies: [ntp]}
target: {tokens: 6e10, deadline: 4d}
prices: {gpu_hour: 2}
)";
    return read_plan(path);
  }

  fs::path dir_;
};

TEST_F(PlanBaseFiles, OverlongNameIsBadInput) {
  const Result<Plan> p = read_with_base(std::string(300, 'a') + ".yaml");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().exit_code, ExitCode::kBadInput);
  EXPECT_NE(p.error().message.find(":1:7: base: base scenario"), std::string::npos)
      << p.error().message;
  EXPECT_NE(p.error().message.find("cannot be read"), std::string::npos) << p.error().message;
}

TEST_F(PlanBaseFiles, MissingAndPresentBases) {
  const Result<Plan> missing = read_with_base("absent.yaml");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().exit_code, ExitCode::kBadInput);
  EXPECT_NE(missing.error().message.find("does not exist"), std::string::npos)
      << missing.error().message;

  std::ofstream(dir_ / "base.yaml") << "name: any\n";  // read_plan checks presence only
  const Result<Plan> present = read_with_base("base.yaml");
  ASSERT_TRUE(present.ok()) << present.error().message;
  EXPECT_EQ(present->base, (dir_ / "base.yaml").string());
}

}  // namespace
}  // namespace ntpsim::sim
