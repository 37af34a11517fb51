// `ntpsim validate --quick` end to end through write_validation: the Markdown opens with its
// context, lists every claim with a verdict, explains every difference, and references SVG charts
// that exist beside it. One quick run (a few seconds in Release).
#include "tools/validate/document.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

namespace ntpsim::validate {
namespace {

namespace fs = std::filesystem;

TEST(ValidationDocument, QuickRunWritesClaimsChartsAndExplanations) {
  const fs::path dir = fs::temp_directory_path() / "ntpsim_validation_doc_test";
  fs::remove_all(dir);
  ValidateOptions o;
  o.source_dir = NTPSIM_SOURCE_DIR;
  o.out = (dir / "VALIDATION.md").string();
  o.quick = true;
  o.threads = 2;
  const Status st = write_validation(o);
  ASSERT_TRUE(st.ok()) << st.error().message;
  std::ifstream in(o.out);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string md = ss.str();
  EXPECT_NE(md.find("## Context"), std::string::npos);
  EXPECT_NE(md.find("| git SHA |"), std::string::npos);
  EXPECT_NE(md.find("quick (reduced samples"), std::string::npos);
  // Every claim row ends in a verdict; every "differs" is explained.
  const std::regex row(R"(\| (agrees|\*\*differs\*\*) \|)");
  const auto rows =
      std::distance(std::sregex_iterator(md.begin(), md.end(), row), std::sregex_iterator());
  EXPECT_GE(rows, 19);
  EXPECT_EQ(md.find("not yet explained"), std::string::npos);
  if (md.find("**differs**") != std::string::npos) {
    EXPECT_NE(md.find("## Where ntpsim differs, and why"), std::string::npos);
  }
  // Each referenced chart exists and is an SVG document.
  const std::regex img(R"(\]\(validation/([a-z0-9_]+\.svg)\))");
  int charts = 0;
  for (auto it = std::sregex_iterator(md.begin(), md.end(), img); it != std::sregex_iterator();
       ++it) {
    const fs::path svg = dir / "validation" / (*it)[1].str();
    ASSERT_TRUE(fs::exists(svg)) << svg;
    std::ifstream f(svg);
    std::string head(4, '\0');
    f.read(head.data(), 4);
    EXPECT_EQ(head, "<svg");
    ++charts;
  }
  EXPECT_GE(charts, 10);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ntpsim::validate
