// write_file_atomic and OutputSet (models/base/atomic_file.h): complete regular files only, no
// temporary left behind, inputs and earlier files never lost.
#include "models/base/atomic_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
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

TEST(AtomicFile, ADirectoryIsRefusedAndKept) {
  const fs::path dir = scratch("dir");
  fs::create_directories(dir / "taken" / "child");
  for (const std::string& path : {(dir / "taken").string(), (dir / "taken").string() + "/"}) {
    const Status st = write_file_atomic(path, "x");
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().exit_code, ExitCode::kBadInput);
    EXPECT_NE(st.error().message.find("is a directory"), std::string::npos) << st.error().message;
  }
  EXPECT_EQ(entries(dir), 1u);
  EXPECT_TRUE(fs::is_directory(dir / "taken" / "child"));
  fs::remove_all(dir);
}

TEST(AtomicFile, DevicesFifosAndLinksToThemAreRefused) {
  const fs::path dir = scratch("special");
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
  fs::create_symlink("/dev/null", dir / "null-link");
  fs::create_symlink(dir / "nowhere", dir / "dangling");
  fs::create_directory(dir / "d");
  fs::create_symlink(dir / "d", dir / "dir-link");
  const std::pair<std::string, const char*> cases[] = {
      {"/dev/null", "is a device"},
      {(dir / "fifo").string(), "is a FIFO"},
      {(dir / "null-link").string(), "is a device"},
      {(dir / "dir-link").string(), "is a directory"},
      {(dir / "dangling").string(), "is a symbolic link to nothing"}};
  for (const auto& [path, why] : cases) {
    const Status st = write_file_atomic(path, "x");
    ASSERT_FALSE(st.ok()) << path;
    EXPECT_EQ(st.error().exit_code, ExitCode::kBadInput) << path;
    EXPECT_NE(st.error().message.find(path + ": " + why), std::string::npos) << st.error().message;
  }
  EXPECT_TRUE(fs::is_fifo(dir / "fifo"));
  EXPECT_TRUE(fs::is_symlink(dir / "null-link"));
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  EXPECT_EQ(entries(dir), 5u);  // nothing added
  fs::remove_all(dir);
}

TEST(AtomicFile, ALinkToARegularFileReplacesTheFileAndKeepsTheLink) {
  const fs::path dir = scratch("link");
  ASSERT_TRUE(write_file_atomic((dir / "real").string(), "old").ok());
  fs::create_symlink(dir / "real", dir / "link");
  ASSERT_TRUE(write_file_atomic((dir / "link").string(), "new").ok());
  EXPECT_TRUE(fs::is_symlink(dir / "link"));
  EXPECT_EQ(slurp(dir / "real"), "new");
  EXPECT_EQ(entries(dir), 2u);
  fs::remove_all(dir);
}

TEST(AtomicFile, LongNamesFitAndTemporariesAreRecognisable) {
  const fs::path dir = scratch("long");
  const std::string name(250, 'n');
  ASSERT_TRUE(write_file_atomic((dir / name).string(), "x").ok());
  EXPECT_EQ(slurp(dir / name), "x");
  EXPECT_EQ(entries(dir), 1u);
  // A 255-byte name, and a multi-byte UTF-8 name cut only between characters.
  std::string utf8;
  while (utf8.size() < 250) utf8 += "\xc3\xa9";  // U+00E9, two bytes
  for (const std::string& n : {std::string(255, 'm'), utf8}) {
    const std::string tmp = temporary_name_for((dir / n).string(), "tmp");
    const std::string leaf = fs::path(tmp).filename().string();
    EXPECT_LE(leaf.size(), 255u);
    EXPECT_EQ(leaf.front(), '.');
    EXPECT_NE(leaf.find(".ntpsim-" + std::to_string(::getpid()) + "-"), std::string::npos);
    EXPECT_EQ(leaf.substr(leaf.size() - 4), ".tmp");
    EXPECT_EQ(fs::path(tmp).parent_path(), dir);
  }
  const std::string cut = fs::path(temporary_name_for((dir / utf8).string(), "tmp")).filename();
  const size_t mark = cut.find(".ntpsim-");
  EXPECT_EQ((mark - 1) % 2, 0u);  // whole two-byte characters before the suffix
  fs::remove_all(dir);
}

TEST(OutputSet, RefusesAnOutputThatIsAnInputOrAnotherOutput) {
  const fs::path dir = scratch("clash");
  const std::string in = (dir / "s.yaml").string();
  ASSERT_TRUE(write_file_atomic(in, "name: s\n").ok());
  fs::create_hard_link(in, dir / "hard");
  fs::create_symlink(in, dir / "soft");
  fs::create_directory(dir / "d");
  OutputSet outputs;
  outputs.add_input(in, "scenario");
  for (const std::string& path :
       {in, (dir / "hard").string(), (dir / "soft").string(), (dir / "." / "s.yaml").string(),
        (dir / "d" / ".." / "s.yaml").string()}) {
    const Status st = outputs.declare(path, "--out");
    ASSERT_FALSE(st.ok()) << path;
    EXPECT_EQ(st.error().exit_code, ExitCode::kBadInput);
    EXPECT_NE(st.error().message.find("--out " + path + ": is the scenario " + in),
              std::string::npos)
        << st.error().message;
  }
  ASSERT_TRUE(outputs.declare((dir / "x").string(), "--out").ok());
  const Status twice = outputs.declare((dir / "." / "x").string(), "--csv");
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.error().message.find("is also the output --out"), std::string::npos)
      << twice.error().message;
  EXPECT_EQ(slurp(in), "name: s\n");
  fs::remove_all(dir);
}

TEST(OutputSet, AFailedLaterOutputKeepsTheFilesThatWereThere) {
  const fs::path dir = scratch("keep");
  const std::string r = (dir / "r.json").string();
  ASSERT_TRUE(write_file_atomic(r, "before").ok());
  {
    OutputSet outputs;
    ASSERT_TRUE(outputs.stage(r, "after").ok());
    EXPECT_EQ(slurp(r), "before");  // staged, not yet in place
    const Status st = outputs.stage((dir / "nodir" / "c.csv").string(), "c");
    ASSERT_FALSE(st.ok());
  }  // abandoned: the temporary goes
  EXPECT_EQ(slurp(r), "before");
  EXPECT_EQ(entries(dir), 1u);
  fs::remove_all(dir);
}

TEST(OutputSet, CommitIsAllOrNoneAndRestoresReplacedFiles) {
  const fs::path dir = scratch("commit");
  const std::string a = (dir / "a").string();
  const std::string b = (dir / "b").string();
  const std::string c = (dir / "c").string();
  ASSERT_TRUE(write_file_atomic(a, "old a").ok());
  {
    OutputSet outputs;
    ASSERT_TRUE(outputs.stage(a, "new a").ok());
    ASSERT_TRUE(outputs.stage(b, "new b").ok());
    ASSERT_TRUE(outputs.stage(c, "new c").ok());
    fs::create_directory(c);  // c becomes unwritable after staging
    const Status st = outputs.commit();
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.error().message.find("is a directory"), std::string::npos);
  }
  EXPECT_EQ(slurp(a), "old a");      // restored
  EXPECT_FALSE(fs::exists(b));       // did not exist before: removed again
  EXPECT_TRUE(fs::is_directory(c));  // untouched
  EXPECT_EQ(entries(dir), 2u);       // no temporary, no backup left
  fs::remove(c);
  {
    OutputSet outputs;
    ASSERT_TRUE(outputs.stage(a, "new a").ok());
    ASSERT_TRUE(outputs.stage(b, "new b").ok());
    ASSERT_TRUE(outputs.commit().ok());
  }
  EXPECT_EQ(slurp(a), "new a");
  EXPECT_EQ(slurp(b), "new b");
  EXPECT_EQ(entries(dir), 2u);
  fs::remove_all(dir);
}

TEST(AtomicFile, EmptyPathIsBadInput) {
  const Status st = write_file_atomic("", "x");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().exit_code, ExitCode::kBadInput);
}

}  // namespace
}  // namespace ntpsim
