// A kept file reading is vouched for by the file's stat stamp only when the stamp is settled
// (models/base/file_stamp.h); otherwise, and whenever the stamp differs, the bytes are compared.
#include "models/base/file_stamp.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "models/base/yaml_reader.h"

namespace ntpsim {
namespace {

class FileStampTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("ntpsim_file_stamp_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
    return path;
  }
  std::filesystem::path dir_;
};

TEST(FileStampSettled, BothTimesMustLieMoreThanTheMarginBeforeTheStat) {
  FileStamp s;
  s.modified_ns = 1'000'000'000'000;
  s.changed_ns = 1'000'000'000'000;
  EXPECT_FALSE(stamp_settled(s, s.changed_ns + kSettleNs));
  EXPECT_TRUE(stamp_settled(s, s.changed_ns + kSettleNs + 1));
  s.modified_ns = s.changed_ns + 10;  // a modification time set ahead (touch -d)
  EXPECT_FALSE(stamp_settled(s, s.changed_ns + kSettleNs + 1));
  EXPECT_TRUE(stamp_settled(s, s.modified_ns + kSettleNs + 1));
}

// A file written just now has an unsettled stamp: a write in the same clock tick could keep it.
TEST_F(FileStampTest, AFreshFileIsComparedByItsBytes) {
  const std::string path = write("f.yaml", "a: 1\n");
  auto r = read_stamped_text(path);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->text, "a: 1\n");
  EXPECT_FALSE(r->settled);
  ASSERT_TRUE(stamp_of(path).has_value());
  EXPECT_EQ(r->stamp.size, 5);
  EXPECT_TRUE(still_holds(path, *r));
  write("f.yaml", "a: 2\n");  // same size, possibly the same stamp
  EXPECT_FALSE(still_holds(path, *r));
  write("f.yaml", "a: 1\n");
  EXPECT_TRUE(still_holds(path, *r));
}

// A settled stamp equal to the file's vouches for the kept bytes without reading the file (shown
// here with kept bytes the file does not hold); a stamp that differs, or one not settled, falls
// back to the bytes.
TEST_F(FileStampTest, ASettledEqualStampIsTrustedAndAnyOtherIsNot) {
  const std::string path = write("f.yaml", "a: 1\n");
  const auto stamp = stamp_of(path);
  ASSERT_TRUE(stamp.has_value());
  EXPECT_TRUE(still_holds(path, StampedText{"b: 9\n", *stamp, true}));
  EXPECT_FALSE(still_holds(path, StampedText{"b: 9\n", *stamp, false}));
  FileStamp other = *stamp;
  other.changed_ns -= 1;
  EXPECT_FALSE(still_holds(path, StampedText{"b: 9\n", other, true}));
  EXPECT_TRUE(still_holds(path, StampedText{"a: 1\n", other, true}));
  // Another file at the path (a new inode) is another stamp.
  const std::string moved = write("g.yaml", "a: 1\n");
  std::filesystem::rename(moved, path);
  EXPECT_NE(stamp_of(path)->inode, stamp->inode);
  EXPECT_FALSE(still_holds(path, StampedText{"b: 9\n", *stamp, true}));
  // A missing file holds nothing.
  std::filesystem::remove(path);
  EXPECT_FALSE(stamp_of(path).has_value());
  EXPECT_FALSE(still_holds(path, StampedText{"a: 1\n", *stamp, true}));
}

TEST_F(FileStampTest, ReadErrorsAreThoseOfTheUnstampedRead) {
  const std::string missing = (dir_ / "missing.yaml").string();
  auto r = read_stamped_text(missing);
  ASSERT_FALSE(r.ok());
  auto plain = read_yaml_file_text(missing);
  ASSERT_FALSE(plain.ok());
  EXPECT_EQ(r.error().message, plain.error().message);
  EXPECT_FALSE(read_stamped_text(dir_.string()).ok());  // a directory
}

}  // namespace
}  // namespace ntpsim
