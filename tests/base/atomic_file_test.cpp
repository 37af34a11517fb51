// write_file_atomic (models/base/atomic_file.h): complete files only, no temporary left behind.
#include "models/base/atomic_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

namespace ntpsim {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const char* name) {
  const fs::path dir = fs::temp_directory_path() /
                       ("ntpsim-atomic-" + std::to_string(::getpid()) + "-" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

size_t entries(const fs::path& dir) {
  return static_cast<size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

TEST(AtomicFile, ReplacesTheWholeFileAndLeavesOnlyIt) {
  const fs::path dir = scratch("replace");
  const std::string path = (dir / "r.json").string();
  ASSERT_TRUE(write_file_atomic(path, std::string(100000, 'a')).ok());
  ASSERT_TRUE(write_file_atomic(path, "short\n").ok());
  EXPECT_EQ(slurp(path), "short\n");
  EXPECT_EQ(entries(dir), 1u);
  fs::remove_all(dir);
}

TEST(AtomicFile, MissingFolderIsRuntimeErrorNamingThePath) {
  const fs::path dir = scratch("missing");
  const std::string path = (dir / "no" / "r.json").string();
  const Status st = write_file_atomic(path, "x");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().exit_code, ExitCode::kRuntime);
  EXPECT_NE(st.error().message.find(path + ": cannot create the output file"), std::string::npos);
  EXPECT_EQ(entries(dir), 0u);
  fs::remove_all(dir);
}

TEST(AtomicFile, FailedRenameKeepsTheOldTargetAndRemovesTheTemporary) {
  const fs::path dir = scratch("rename");
  fs::create_directories(dir / "taken" / "child");
  const Status st = write_file_atomic((dir / "taken").string(), "x");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().exit_code, ExitCode::kRuntime);
  EXPECT_NE(st.error().message.find("cannot move the finished file into place"),
            std::string::npos);
  EXPECT_EQ(entries(dir), 1u);
  EXPECT_TRUE(fs::is_directory(dir / "taken" / "child"));
  fs::remove_all(dir);
}

TEST(AtomicFile, EmptyPathIsBadInput) {
  const Status st = write_file_atomic("", "x");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().exit_code, ExitCode::kBadInput);
}

}  // namespace
}  // namespace ntpsim
