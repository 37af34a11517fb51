// ntpcal's option parser (calibrate/ntpcal/args.h; plain C++, so it is tested without CUDA).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "calibrate/ntpcal/args.h"

namespace ntpsim::ntpcal {
namespace {

Status parse(Args& a, std::vector<std::string> words) {
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  return a.parse(static_cast<int>(argv.size()), argv.data(), 0);
}

TEST(NtpcalArgs, ListsRangesSizesAndDefaults) {
  Args a;
  a.option("--group-sizes", "sizes");
  a.option("--max-bytes", "bytes", "1G");
  a.option("--quiet", "flag", "", false);
  a.option("--limits", "watts");
  ASSERT_TRUE(parse(a, {"--group-sizes", "2-4,8,70-72", "--quiet", "--limits=400,550.5"}).ok());
  EXPECT_EQ(*a.integers("--group-sizes"), (std::vector<int64_t>{2, 3, 4, 8, 70, 71, 72}));
  EXPECT_TRUE(a.has("--quiet"));
  EXPECT_FALSE(a.has("--max-bytes"));
  EXPECT_EQ(*a.sizes("--max-bytes"), (std::vector<int64_t>{int64_t{1} << 30}));  // the default
  EXPECT_EQ(*a.numbers("--limits"), (std::vector<double>{400, 550.5}));
  EXPECT_NE(a.help().find("--max-bytes VALUE"), std::string::npos);
}

TEST(NtpcalArgs, SizesUseBinaryMultiples) {
  EXPECT_EQ(*parse_size("4096"), 4096);
  EXPECT_EQ(*parse_size("64K"), 65536);
  EXPECT_EQ(*parse_size("1MB"), 1 << 20);
  EXPECT_EQ(*parse_size("0.5G"), int64_t{1} << 29);
  EXPECT_FALSE(parse_size("12Q").ok());
  EXPECT_FALSE(parse_size("").ok());
  EXPECT_FALSE(parse_size("-1K").ok());
}

TEST(NtpcalArgs, BadInputIsAnError) {
  Args a;
  a.option("--reps", "reps", "30");
  a.option("--quiet", "flag", "", false);
  EXPECT_NE(parse(a, {"--rep", "3"}).error().message.find("unknown option '--rep'"), std::string::npos);
  EXPECT_NE(parse(a, {"--reps"}).error().message.find("needs a value"), std::string::npos);
  EXPECT_NE(parse(a, {"--quiet=1"}).error().message.find("takes no value"), std::string::npos);
  Args b;
  b.option("--reps", "reps", "30");
  ASSERT_TRUE(parse(b, {"--reps", "2.5"}).ok());
  EXPECT_NE(b.integer("--reps").error().message.find("'2.5' is not a whole number"), std::string::npos);
  EXPECT_EQ(parse(b, {"--reps", "x"}).ok(), true);
  EXPECT_EQ(b.integer("--reps").error().exit_code, ExitCode::kBadInput);
}

}  // namespace
}  // namespace ntpsim::ntpcal
