// Structural checks of the HTML report: tags balance, nothing is fetched from outside the file,
// every chart figure carries its SVG and the table of its numbers, and the context and warnings
// are there.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <vector>

#include "reports/content.h"
#include "reports/report.h"
#include "tests/reports/fixture.h"
#include "tests/reports/html_checks.h"

namespace ntpsim::reports {
namespace {

class Html : public ::testing::Test {
 protected:
  Results results_ = testing::small_results();
  std::string html_ = render_html(results_);
};

TEST_F(Html, TagsBalance) {
  testing::expect_balanced(html_);
}

TEST_F(Html, FetchesNothingFromOutside) {
  testing::expect_self_contained(html_);
}

TEST_F(Html, EveryChartHasItsSvgAndTable) {
  const auto charts = build_charts(results_);
  std::vector<std::string> ids;
  for (const auto& c : charts) ids.push_back(c.id);
  EXPECT_EQ(ids,
            (std::vector<std::string>{"goodput", "badput", "paired", "timeline", "distribution"}));
  const size_t figures = testing::expect_figures_complete(html_);
  EXPECT_EQ(figures, charts.size());
  for (const auto& id : ids) {
    EXPECT_NE(html_.find("<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"" + id + "\""),
              std::string::npos)
        << id;
  }
}

TEST_F(Html, ContextWarningsAndScenarioAreShown) {
  for (const char* s : {"0123456789ab", "fnv1a64:5eed5eed5eed5eed", "<td>Seed</td><td>42</td>",
                        "<td>Replications</td><td>8</td>", "spec-derived (not measured)",
                        "id=\"warnings\"", "Debug build", "<details>", "llama3-70b"}) {
    EXPECT_NE(html_.find(s), std::string::npos) << s;
  }
  // The engine already warned about replications; the report does not say it twice.
  const auto warnings = report_warnings(results_);
  EXPECT_EQ(std::count_if(
                warnings.begin(), warnings.end(),
                [](const std::string& w) { return w.find("replications") != std::string::npos; }),
            1);
}

TEST(HtmlWarnings, FlagsWideIntervalsAndFewReplications) {
  Results r = testing::small_results();
  r.warnings.clear();
  r.context.build_type = "Release";
  r.context.profile_origin = "measured";
  r.strategies[0].summary["goodput"].ci95_lo = 0.90;
  r.strategies[0].summary["goodput"].ci95_hi = 0.96;
  const auto w = report_warnings(r);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_NE(w[0].find("only 8 replications"), std::string::npos) << w[0];
  EXPECT_NE(w[1].find("wide CI: checkpoint-restart goodput is known only to ±3.00 points"),
            std::string::npos)
      << w[1];
  r.context.replications = 200;
  r.strategies[0].summary["goodput"].ci95_hi = 0.91;
  EXPECT_TRUE(report_warnings(r).empty());
}

TEST(HtmlEscaping, UserTextIsEscaped) {
  Results r = testing::small_results();
  r.context.scenario_name = "<script>alert(1)</script>";
  r.strategies[1].label = "a&b";
  const std::string html = render_html(r);
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;"), std::string::npos);
  EXPECT_NE(html.find("a&amp;b"), std::string::npos);
}

}  // namespace
}  // namespace ntpsim::reports

namespace ntpsim::reports {
namespace {

TEST(HtmlSweep, SweepCurvesLeadAndTheBestPointsAreLabelled) {
  auto r = load_results(testing::fixture_path("sweep.json"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  const auto charts = build_charts(*r);
  std::vector<std::string> ids;
  for (const auto& c : charts) ids.push_back(c.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"sweep", "goodput", "badput"}));
  // Details are at each strategy's best point (here the lowest failure rate for all three).
  EXPECT_NE(charts[1].title.find("at each strategy's best sweep point"), std::string::npos)
      << charts[1].title;
  EXPECT_NE(charts[1].table.rows[0][0].find("@ failures.processes[0].rate = 1e-5/h"),
            std::string::npos)
      << charts[1].table.rows[0][0];
  const std::string html = render_html(*r);
  EXPECT_NE(html.find("<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"sweep\""), std::string::npos);
  EXPECT_NE(html.find("<td>Varied</td><td>failures.processes[0].rate (6 points)</td>"),
            std::string::npos);
  EXPECT_NE(html.find("<h2>All metrics at each strategy&#39;s best sweep point</h2>"),
            std::string::npos);
}

}  // namespace
}  // namespace ntpsim::reports

namespace ntpsim::reports {
namespace {

// A month-like timeline with a checkpoint every 500 s: 2400 segments, far more than the chart
// has pixels. The throughput is then drawn as 300 bin means (each exactly 0.9 here), so the
// line collapses to a flat segment instead of 2400 spikes.
TEST(TimelineChart, DenseTimelinesAreBinned) {
  Results r = testing::small_results();
  for (TimelineTrack& st : r.timeline->strategies) {
    st.segments.clear();
    st.marks.clear();
    for (int k = 0; k < 1200; ++k) {
      const double t = 500.0 * k;
      st.segments.push_back({t, t + 450.0, "running", 1.0, 1152, 0});
      st.segments.push_back({t + 450.0, t + 500.0, "checkpointing", 0.0, 1152, 0});
      st.marks.push_back({t + 450.0, "checkpoint"});
    }
  }
  r.timeline->horizon_s = 600000.0;
  const Chart c = timeline_chart(r);
  EXPECT_NE(c.caption.find("averaged over bins of 0.556 hours"), std::string::npos) << c.caption;
  EXPECT_EQ(c.svg.find(R"(r="2.5")"), std::string::npos);  // no checkpoint marks when dense
  size_t longest = 0;
  for (size_t i = c.svg.find("<polyline points=\""); i != std::string::npos;
       i = c.svg.find("<polyline points=\"", i + 1)) {
    const size_t end = c.svg.find('"', i + 18);
    const std::string pts = c.svg.substr(i + 18, end - i - 18);
    longest = std::max<size_t>(longest, std::count(pts.begin(), pts.end(), ' ') + 1);
  }
  EXPECT_GT(longest, 0u);
  EXPECT_LT(longest, 100u);                // unbinned, each throughput line would have 4800 points
  EXPECT_EQ(c.table.rows[0][2], "90.00");  // time-weighted mean throughput, from the segments
}

}  // namespace
}  // namespace ntpsim::reports

namespace ntpsim::reports {
namespace {

// With a token budget the distribution shows the time to train, in days, not goodput.
TEST(DistributionChart, ShowsTimeToTrainWhenThereIsABudget) {
  Results r = testing::small_results();
  r.metrics.push_back({"time_to_train_days", "Time to train", "days"});
  for (auto& s : r.strategies) {
    MetricSummary st;
    st.mean = st.p50 = 40.0;
    st.p5 = st.min = 38.5;
    st.p95 = st.max = 42.25;
    st.ci95_lo = 39.0;
    st.ci95_hi = 41.0;
    st.n = 8;
    s.summary["time_to_train_days"] = st;
    for (auto& rep : s.replications) rep["time_to_train_days"] = 40.0;
  }
  const Chart c = distribution_chart(r);
  EXPECT_EQ(c.title, "Distribution of Time to train across replications");
  EXPECT_EQ(c.table.headers[2], "min (days)");
  EXPECT_EQ(c.table.rows[0][2], "38.5");
  EXPECT_EQ(c.table.rows[0][5], "42.25");
  EXPECT_NE(c.svg.find(">Time to train (days)</text>"), std::string::npos);
}

}  // namespace
}  // namespace ntpsim::reports

namespace ntpsim::reports {
namespace {

// Badput parts that do not add up with goodput to 100% are called out under the chart.
TEST(BadputChart, FlagsPartsThatDoNotSumToOne) {
  Results r = testing::small_results();
  EXPECT_EQ(badput_chart(r).table.note, "");
  r.strategies[1].summary["badput_stall"].mean = 0.02;
  r.strategies[2].summary["badput_stall"].mean = 0.03;
  EXPECT_EQ(badput_chart(r).table.note,
            "goodput and badput of DP drop sum to 102.00%, not 100%; goodput and badput of NTP "
            "sum to 103.00%, not 100%");
}

}  // namespace
}  // namespace ntpsim::reports
