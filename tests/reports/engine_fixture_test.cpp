// The contract test with the engine: fixtures/engine_small.json is what `ntpsim run` wrote for
// fixtures/small.yaml (regenerate: see golden/README.md). Whatever the engine's numbers, reports/
// must read its document and render every output well formed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "reports/content.h"
#include "reports/report.h"
#include "tests/reports/fixture.h"
#include "tests/reports/html_checks.h"

namespace ntpsim::reports {
namespace {

class EngineFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    auto r = load_results(testing::fixture_path("engine_small.json"));
    ASSERT_TRUE(r.ok()) << r.error().message;
    results_ = std::move(r).value();
  }
  Results results_;
};

TEST_F(EngineFixture, HasWhatTheReportNeeds) {
  EXPECT_EQ(results_.kind, "run");
  EXPECT_EQ(results_.context.scenario_name, "reports-small");
  EXPECT_EQ(results_.context.replications, 8);
  ASSERT_EQ(results_.strategies.size(), 3u);
  for (const auto& s : results_.strategies) {
    EXPECT_EQ(s.replications.size(), 8u) << s.name;
    EXPECT_TRUE(s.summary.count("goodput")) << s.name;
    for (const auto& k : badput_keys()) EXPECT_TRUE(s.summary.count(k)) << s.name << " " << k;
  }
  ASSERT_TRUE(results_.timeline.has_value());
  EXPECT_EQ(results_.timeline->strategies.size(), 3u);
  EXPECT_FALSE(results_.paired.empty());
}

TEST_F(EngineFixture, HtmlIsCompleteAndSelfContained) {
  const std::string html = render_html(results_);
  testing::expect_balanced(html);
  testing::expect_self_contained(html);
  const auto charts = build_charts(results_);
  EXPECT_EQ(charts.size(), 5u);
  EXPECT_EQ(testing::expect_figures_complete(html), charts.size());
}

TEST_F(EngineFixture, MarkdownAndCsvCoverEveryStrategy) {
  const std::string md = render_markdown(results_, "r");
  const std::string csv = render_csv(results_);
  for (const auto& s : results_.strategies) {
    EXPECT_NE(md.find("| " + s.label + " |"), std::string::npos) << s.name;
    // Rows start with the provenance columns, then strategy, row kind and replication.
    EXPECT_NE(csv.find("," + s.name + ",replication,7,"), std::string::npos) << s.name;
    EXPECT_NE(csv.find("," + s.name + ",ci95_hi,,"), std::string::npos) << s.name;
  }
}

TEST_F(EngineFixture, TimelineSlicesNestAndCoverTheSegments) {
  const auto doc = nlohmann::json::parse(render_timeline(results_));
  std::map<std::pair<int, int>, std::vector<std::pair<int64_t, int64_t>>> tracks;
  std::map<int, size_t> job_slices;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] != "X") continue;
    tracks[{e["pid"], e["tid"]}].emplace_back(e["ts"], e["dur"]);
    if (e["cat"] == "job") ++job_slices[e["pid"]];
  }
  for (auto& [track, slices] : tracks) {
    std::sort(slices.begin(), slices.end());
    for (size_t i = 1; i < slices.size(); ++i)
      EXPECT_LE(slices[i - 1].first + slices[i - 1].second, slices[i].first)
          << track.first << "/" << track.second;
  }
  for (size_t i = 0; i < results_.timeline->strategies.size(); ++i) {
    size_t nonempty = 0;
    for (const auto& g : results_.timeline->strategies[i].segments)
      nonempty += std::llround(g.end_s * 1e6) > std::llround(g.t_s * 1e6) ? 1 : 0;
    EXPECT_EQ(job_slices[static_cast<int>(i) + 2], nonempty);
  }
}

}  // namespace
}  // namespace ntpsim::reports
