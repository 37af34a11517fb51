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

TEST(NtpcalArgs, NcclTestsShortFlags) {
  Args a;
  a.option("--min-bytes", "smallest", "1K");
  a.option("--max-bytes", "largest", "1G");
  a.option("--factor", "factor", "4");
  a.option("--iters", "iters", "20");
  a.option("--warmup", "warm-up", "5");
  a.option("--gpus", "gpus");
  a.alias("-b", "--min-bytes");
  a.alias("-e", "--max-bytes");
  a.alias("-f", "--factor");
  a.alias("-n", "--iters");
  a.alias("-w", "--warmup");
  a.alias("-g", "--gpus");
  // As nccl-tests users type them: separate or attached values.
  ASSERT_TRUE(parse(a, {"-b", "8", "-e8G", "-f", "2", "-n", "50", "-w5", "-g", "8"}).ok());
  EXPECT_EQ(*parse_size(a.text("--min-bytes")), 8);
  EXPECT_EQ(*parse_size(a.text("--max-bytes")), int64_t{8} << 30);
  EXPECT_EQ(*a.number("--factor"), 2.0);
  EXPECT_EQ(*a.integer("--iters"), 50);
  EXPECT_EQ(*a.integer("--warmup"), 5);
  EXPECT_EQ(*a.integer("--gpus"), 8);
  EXPECT_NE(a.help().find("-b, --min-bytes VALUE"), std::string::npos);
  Args b;
  b.option("--min-bytes", "smallest");
  b.alias("-b", "--min-bytes");
  EXPECT_FALSE(parse(b, {"-b"}).ok());       // needs a value
  EXPECT_FALSE(parse(b, {"-x", "1"}).ok());  // unknown short flag
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
