// Tests of models/base/file_memo.h and its users (workload and hardware profile files): a file
// read again with the same bytes gives the value its first reading gave without parsing it; a
// file with other bytes, or the same file under another key, is read anew; errors are never kept.
#include "models/base/file_memo.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "models/hardware.h"
#include "models/workload.h"

namespace ntpsim::models {
namespace {

namespace fs = std::filesystem;

class FileMemoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("ntpsim_file_memo_test_" +
            std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::trunc) << text;
    return path;
  }
  static std::string source_file(const std::string& relative) {
    std::ifstream in(std::string(NTPSIM_SOURCE_DIR) + "/" + relative);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

  fs::path dir_;
};

TEST_F(FileMemoTest, KeepsValuesByPathKeyAndBytes) {
  FileMemo<std::string> memo;
  int reads = 0;
  auto read = [&](const std::string& text) -> Result<std::string> {
    ++reads;
    if (text == "bad") return Error::bad_input("bad text");
    return "read:" + text;
  };
  const std::string a = write("a.yaml", "one");
  EXPECT_EQ(*memo.get(a, "k", read), "read:one");
  EXPECT_EQ(*memo.get(a, "k", read), "read:one");
  EXPECT_EQ(reads, 1);
  // Another key of the same file: read anew.
  EXPECT_EQ(*memo.get(a, "other", read), "read:one");
  EXPECT_EQ(reads, 2);
  // The same path with other bytes: read anew, and the new value is kept.
  write("a.yaml", "two");
  EXPECT_EQ(*memo.get(a, "k", read), "read:two");
  EXPECT_EQ(*memo.get(a, "k", read), "read:two");
  EXPECT_EQ(reads, 3);
  // Errors are not kept: the reader is asked each time.
  write("a.yaml", "bad");
  EXPECT_FALSE(memo.get(a, "k", read).ok());
  EXPECT_FALSE(memo.get(a, "k", read).ok());
  EXPECT_EQ(reads, 5);
  // A file that cannot be read: load_yaml_file's error, the reader is not asked.
  const std::string missing = (dir_ / "missing.yaml").string();
  auto gone = memo.get(missing, "k", read);
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.error().message, load_yaml_file(missing).error().message);
  EXPECT_EQ(reads, 5);
  // Bounded: a full memo starts over; values stay right.
  FileMemo<std::string> small(2);
  const std::string b = write("b.yaml", "b"), c = write("c.yaml", "c"), d = write("d.yaml", "d");
  EXPECT_EQ(*small.get(b, "", read), "read:b");
  EXPECT_EQ(*small.get(c, "", read), "read:c");
  EXPECT_EQ(reads, 7);
  EXPECT_EQ(*small.get(d, "", read), "read:d");  // full: starts over, keeps d
  EXPECT_EQ(*small.get(d, "", read), "read:d");
  EXPECT_EQ(reads, 8);
  EXPECT_EQ(*small.get(b, "", read), "read:b");  // read anew
  EXPECT_EQ(reads, 9);
}

// A workload file read twice gives the same workload; rewritten with another layer count, the
// new count (the memo is keyed by the bytes, not only the path).
TEST_F(FileMemoTest, WorkloadFileRereadWhenItsBytesChange) {
  const std::string original = source_file("models/workloads/llama3-8b.yaml");
  ASSERT_NE(original.find("layers: 32"), std::string::npos);
  const std::string file = write("w.yaml", original);
  const YamlContext ctx("scenario.yaml");
  auto first = read_workload(YAML::Node(file), "workload", ctx, {});
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(first->layers, 32);
  auto again = read_workload(YAML::Node(file), "workload", ctx, {});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->layers, first->layers);
  EXPECT_EQ(again->hidden, first->hidden);
  EXPECT_EQ(again->name, first->name);
  EXPECT_EQ(again->source, first->source);
  std::string edited = original;
  edited.replace(edited.find("layers: 32"), 10, "layers: 16");
  write("w.yaml", edited);
  auto changed = read_workload(YAML::Node(file), "workload", ctx, {});
  ASSERT_TRUE(changed.ok()) << changed.error().message;
  EXPECT_EQ(changed->layers, 16);
  // An error in the file names the field path it was read for, each time.
  write("w.yaml", "layers: 0\n");
  for (const std::string path : {"workload", "workload.base"}) {
    auto bad = read_workload(YAML::Node(file), path, ctx, {});
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().message.find(path), std::string::npos) << bad.error().message;
  }
}

TEST_F(FileMemoTest, HardwareProfileFileRereadWhenItsBytesChange) {
  const std::string original = source_file("models/profiles/h100-sxm.yaml");
  ASSERT_NE(original.find("tdp: \"700W\""), std::string::npos);
  const std::string file = write("hw.yaml", original);
  const YamlContext ctx("scenario.yaml");
  auto first = read_hardware(YAML::Node(file), "hardware", ctx, {});
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(first->tdp_w, 700.0);
  auto again = read_hardware(YAML::Node(file), "hardware", ctx, {});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->peak_bf16_flops, first->peak_bf16_flops);
  EXPECT_EQ(again->tdp_w, first->tdp_w);
  EXPECT_EQ(again->name, first->name);
  std::string edited = original;
  edited.replace(edited.find("tdp: \"700W\""), 11, "tdp: \"650W\"");
  write("hw.yaml", edited);
  auto changed = read_hardware(YAML::Node(file), "hardware", ctx, {});
  ASSERT_TRUE(changed.ok()) << changed.error().message;
  EXPECT_EQ(changed->tdp_w, 650.0);
}

}  // namespace
}  // namespace ntpsim::models
