// Writing files: atomic (temp + rename, nothing left behind on error), Markdown writes its SVGs
// beside it, and a timeline needs a timeline.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "models/base/atomic_file.h"
#include "reports/report.h"
#include "tests/reports/fixture.h"

namespace ntpsim::reports {
namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

size_t count_files(const fs::path& dir) {
  return static_cast<size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

TEST(Write, ReplacesAtomicallyAndLeavesNoTemporary) {
  const auto dir = testing::scratch_dir();
  const auto path = (dir / "out.txt").string();
  ASSERT_TRUE(write_file_atomic(path, "first").ok());
  ASSERT_TRUE(write_file_atomic(path, "second").ok());
  EXPECT_EQ(read(path), "second");
  EXPECT_EQ(count_files(dir), 1u);
}

TEST(Write, MissingFolderIsARuntimeErrorAndWritesNothing) {
  const auto dir = testing::scratch_dir();
  const auto path = (dir / "no-such-folder" / "r.html").string();
  Status st = write_html(testing::small_results(), path);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().exit_code, ExitCode::kRuntime);
  EXPECT_NE(st.error().message.find(path), std::string::npos);
  EXPECT_EQ(count_files(dir), 0u);
}

TEST(Write, RenameOntoAFolderFailsAndCleansUp) {
  const auto dir = testing::scratch_dir();
  fs::create_directories(dir / "taken" / "child");
  Status st = write_file_atomic((dir / "taken").string(), "x");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(count_files(dir), 1u);  // only the folder; no temporary left
}

TEST(Write, MarkdownWritesItsChartsBesideIt) {
  const auto dir = testing::scratch_dir();
  ASSERT_TRUE(write_markdown(testing::small_results(), (dir / "rep.md").string()).ok());
  const std::string md = read(dir / "rep.md");
  for (const char* id : {"goodput", "badput", "paired", "distribution", "timeline"}) {
    const std::string name = std::string("rep-") + id + ".svg";
    EXPECT_TRUE(fs::exists(dir / name)) << name;
    EXPECT_NE(md.find("](" + name + ")"), std::string::npos) << name;
    EXPECT_EQ(read(dir / name).rfind("<svg xmlns", 0), 0u) << name;
  }
  EXPECT_EQ(count_files(dir), 6u);
}

TEST(Write, TimelineWithoutTimelineIsBadInput) {
  const auto dir = testing::scratch_dir();
  Results r = testing::small_results();
  r.timeline.reset();
  Status st = write_timeline(r, (dir / "t.json").string());
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().exit_code, ExitCode::kBadInput);
  EXPECT_EQ(count_files(dir), 0u);
}

TEST(Write, ReportFilesFromAnInMemoryDocument) {
  const auto dir = testing::scratch_dir();
  std::ifstream in(testing::fixture_path("small.json"));
  const nlohmann::json doc = nlohmann::json::parse(in);
  ASSERT_TRUE(
      write_report_files(doc, "run", (dir / "r.md").string(), (dir / "t.json").string()).ok());
  EXPECT_TRUE(fs::exists(dir / "r.md"));
  EXPECT_TRUE(fs::exists(dir / "r-goodput.svg"));
  EXPECT_TRUE(fs::exists(dir / "t.json"));
  EXPECT_TRUE(write_report_files(doc, "run", "", "").ok());  // nothing asked, nothing written
  const nlohmann::ordered_json ordered = doc;                // what the engine builds
  ASSERT_TRUE(write_report_files(ordered, "run", (dir / "o.html").string(), "").ok());
  EXPECT_TRUE(fs::exists(dir / "o.html"));
  nlohmann::json broken = doc;
  broken.erase("metrics");
  Status st = write_report_files(broken, "run", (dir / "x.html").string(), "");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().exit_code, ExitCode::kRuntime);
  EXPECT_NE(st.error().message.find("run: metrics: missing"), std::string::npos)
      << st.error().message;
  EXPECT_FALSE(fs::exists(dir / "x.html"));
}

TEST(Write, FormatFollowsTheExtension) {
  EXPECT_EQ(format_for_path("a/b.md"), Format::kMarkdown);
  EXPECT_EQ(format_for_path("r.csv"), Format::kCsv);
  EXPECT_EQ(format_for_path("r.html"), Format::kHtml);
  EXPECT_EQ(format_for_path("report"), Format::kHtml);
}

}  // namespace
}  // namespace ntpsim::reports
