// The answer-first views: the verdict box (winner, paired margin, tie flag), the all-pairs table,
// the two-parameter sweep heatmaps with their best cell, the tidy CSV, the truthful end of a
// capped timeline (chart and Perfetto trace) and the plan page.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "reports/content.h"
#include "reports/report.h"
#include "tests/reports/fixture.h"
#include "tests/reports/html_checks.h"

namespace ntpsim::reports {
namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(Verdict, LeadsTheRunReportAndNamesWinnerMarginAndCi) {
  const Results r = testing::small_results();
  const VerdictBox box = verdict_box(r);
  // The fixture's NTP beats DP drop by 1.70 points, CI [1.29, 2.11] (make_small_fixture.py).
  EXPECT_EQ(box.headline, "NTP wins: +1.70 pts goodput over DP drop (95% CI [+1.29, +2.11])");
  EXPECT_FALSE(box.tied);
  const std::string html = render_html(r);
  const size_t verdict = html.find("<section id=\"verdict\" class=\"verdict\"");
  ASSERT_NE(verdict, std::string::npos);
  EXPECT_LT(verdict, html.find("<section id=\"context\">"));
  EXPECT_LT(verdict, html.find("<figure"));
  // Provenance in the box and a warning for a spec-derived profile.
  EXPECT_NE(html.find("spec-derived (not measured)"), std::string::npos);
  EXPECT_NE(html.find("is spec-derived (not measured): step times"), std::string::npos);
  const std::string md = render_markdown(r, "x");
  EXPECT_EQ(md.find("## Verdict"), md.find("## "));  // the first section
}

TEST(Verdict, ATieIsCalledATie) {
  Results r = testing::small_results();
  r.verdict->tied = true;
  r.verdict->margin_mean = 0.0004;
  r.verdict->margin_ci95_lo = -0.001;
  r.verdict->margin_ci95_hi = 0.0018;
  const VerdictBox box = verdict_box(r);
  EXPECT_TRUE(box.tied);
  EXPECT_EQ(box.headline.rfind("Statistically tied: NTP and DP drop", 0), 0u) << box.headline;
  EXPECT_NE(render_html(r).find("class=\"verdict tied\""), std::string::npos);
}

TEST(Verdict, EveryPairIsTabulatedWithItsTieFlag) {
  const Results r = testing::small_results();
  const Table t = all_pairs_table(r);
  // Three strategies: three pairs of goodput (the energy pairs are not in this table).
  ASSERT_EQ(t.rows.size(), 3u);
  EXPECT_EQ(t.rows[2][0], "NTP");
  EXPECT_EQ(t.rows[2][1], "DP drop");
  for (const auto& row : t.rows) EXPECT_EQ(row[5].find("tied"), std::string::npos) << row[5];
  // The paired chart keeps to the baseline's pairs.
  for (const auto& row : paired_chart(r).table.rows) EXPECT_EQ(row[1], "checkpoint-restart");
}

TEST(Heatmap, OnePerStrategyWithTheBestCellMarked) {
  auto r = load_results(testing::fixture_path("sweep2d.json"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(sweep_chart(*r).svg.empty());  // no line over a flattened axis
  const auto maps = sweep_heatmaps(*r);
  ASSERT_EQ(maps.size(), 3u);
  EXPECT_EQ(maps[0].id, "heatmap-checkpoint-restart");
  for (const auto& m : maps) {
    EXPECT_EQ(count(m.svg, "class=\"cell\""), 12u) << m.id;  // 3 rates x 4 intervals
    EXPECT_EQ(count(m.svg, "class=\"best\""), 1u) << m.id;
    // Rows are the second parameter (4 intervals), columns the first (3 rates).
    ASSERT_EQ(m.table.rows.size(), 4u);
    EXPECT_EQ(m.table.headers.size(), 4u);
  }
  // dp_drop is best at 1h (the fixture's third interval) and the lowest rate.
  const Table& dp = maps[1].table;
  EXPECT_EQ(dp.rows[2][0], "1h");
  EXPECT_EQ(dp.rows[2][1].rfind("★ ", 0), 0u) << dp.rows[2][1];
  // The verdict names the point; details are at each strategy's best point.
  const VerdictBox box = verdict_box(*r);
  EXPECT_NE(box.headline.find("at sweep point"), std::string::npos) << box.headline;
  const std::string html = render_html(*r);
  testing::expect_balanced(html);
  EXPECT_NE(html.find("synthetic (fitted to synthetic data, not measured)"), std::string::npos);
}

// Splits CSV text into rows of cells (no quoted commas in these fixtures' numeric rows).
std::vector<std::vector<std::string>> csv_rows(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::string cell;
    std::istringstream l(line);
    while (std::getline(l, cell, ',')) cells.push_back(cell);
    if (!line.empty() && line.back() == ',') cells.emplace_back();
    rows.push_back(std::move(cells));
  }
  return rows;
}

bool is_number(const std::string& cell) {
  if (cell.empty()) return true;  // NaN
  char* end = nullptr;
  std::strtod(cell.c_str(), &end);
  return end == cell.c_str() + cell.size();
}

TEST(TidyCsv, NoCommentsAndNumericColumns) {
  const Results r = testing::small_results();
  const auto rows = csv_rows(render_csv(r));
  ASSERT_GT(rows.size(), 1u);
  EXPECT_EQ(rows[0][0], "scenario_hash");
  for (const auto& row : rows) {
    ASSERT_FALSE(row.empty());
    EXPECT_NE(row[0].rfind("#", 0), 0u);
    EXPECT_EQ(row.size(), rows[0].size());
  }
  const auto col = [&](const std::string& name) {
    return static_cast<size_t>(std::find(rows[0].begin(), rows[0].end(), name) - rows[0].begin());
  };
  const size_t row_col = col("row"), rep_col = col("replication"), seed_col = col("seed");
  size_t replications = 0, summaries = 0;
  for (size_t i = 1; i < rows.size(); ++i) {
    const auto& row = rows[i];
    EXPECT_EQ(row[seed_col], "42");
    if (row[row_col] == "replication") {
      ++replications;
      EXPECT_FALSE(row[rep_col].empty());
    } else {
      ++summaries;
      EXPECT_TRUE(row[row_col] == "mean" || row[row_col] == "ci95_lo" || row[row_col] == "ci95_hi");
      EXPECT_TRUE(row[rep_col].empty());  // never a word in a numeric column
    }
    for (size_t k = rep_col; k < row.size(); ++k) EXPECT_TRUE(is_number(row[k])) << row[k];
  }
  EXPECT_EQ(replications, 3u * 8u);
  EXPECT_EQ(summaries, 3u * 3u);
}

TEST(TidyCsv, SweepValuesAreNumbersWithUnits) {
  auto r = load_results(testing::fixture_path("sweep2d.json"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  const auto rows = csv_rows(render_csv(*r));
  const std::vector<std::string> head(rows[0].begin(), rows[0].begin() + 9);
  EXPECT_EQ(head, (std::vector<std::string>{
                      "scenario_hash", "seed", "profile_origin", "point",
                      "failures.processes[0].rate", "failures.processes[0].rate_unit",
                      "checkpoint.interval", "checkpoint.interval_unit", "strategy"}));
  EXPECT_EQ(rows[1][4], "1e-05");
  EXPECT_EQ(rows[1][5], "/h");
  EXPECT_EQ(rows[1][6], "15");
  EXPECT_EQ(rows[1][7], "min");
  const SweepValue v = split_sweep_value("auto");
  EXPECT_FALSE(v.numeric);
}

// A capped timeline: the recording stops at day 3 of 7.
Results capped() {
  Results r = testing::small_results();
  for (TimelineTrack& st : r.timeline->strategies) {
    std::vector<JobSegment> kept;
    for (JobSegment g : st.segments) {
      if (g.t_s >= 3 * 86400.0) break;
      g.end_s = std::min(g.end_s, 3 * 86400.0);
      kept.push_back(g);
    }
    st.segments = kept;
    st.truncated = true;
    st.recorded_until_s = 3 * 86400.0;
  }
  return r;
}

TEST(TruthfulTimeline, ACappedTimelineShowsWhereRecordingStops) {
  const Results r = capped();
  const Chart ch = timeline_chart(r);
  EXPECT_NE(ch.svg.find("class=\"not-recorded\""), std::string::npos);
  EXPECT_NE(ch.svg.find("not recorded after day 3"), std::string::npos);
  EXPECT_NE(ch.table.note.find("stops early"), std::string::npos);
  // The replication table covers the recorded part only and says until when.
  EXPECT_EQ(ch.table.rows[0][1], "3 days (size cap)");
  // The trace: a "not recorded" slice from the cap to the horizon, nothing stretched.
  const auto doc = nlohmann::json::parse(render_timeline(r));
  size_t not_recorded = 0;
  for (const auto& e : doc["traceEvents"]) {
    if (e.value("name", "") == "not recorded") {
      ++not_recorded;
      EXPECT_EQ(e["ts"].get<int64_t>(), int64_t{3 * 86400} * 1000000);
    } else if (e.value("ph", "") == "X") {
      EXPECT_LE(e["ts"].get<int64_t>() + e["dur"].get<int64_t>(), int64_t{7 * 86400} * 1000000);
    }
  }
  EXPECT_EQ(not_recorded, r.timeline->strategies.size());
}

TEST(TruthfulTimeline, CheckpointTimeIsInTheTableAndTheTrace) {
  Results r = testing::small_results();
  const Chart ch = timeline_chart(r);
  const auto& h = ch.table.headers;
  const size_t ckpt =
      static_cast<size_t>(std::find(h.begin(), h.end(), "Time checkpointing (%)") - h.begin());
  ASSERT_LT(ckpt, h.size());
  // Replication 0's badput_checkpoint in the fixture is 1.20% for every strategy.
  for (const auto& row : ch.table.rows) EXPECT_EQ(row[ckpt], "1.20") << row[0];
  // Checkpoint marks with a duration become slices on a "checkpoints" track.
  for (auto& st : r.timeline->strategies) {
    for (auto& m : st.marks) {
      if (m.type == "checkpoint") m.duration_s = 60.0;
    }
  }
  const auto doc = nlohmann::json::parse(render_timeline(r));
  size_t slices = 0;
  for (const auto& e : doc["traceEvents"]) {
    if (e.value("cat", "") == "checkpoint") {
      ++slices;
      EXPECT_EQ(e["dur"].get<int64_t>(), 60000000);
    }
  }
  EXPECT_GT(slices, 0u);
}

TEST(PlanPage, SameFamilyWithCostBreakdownAndTieFlag) {
  auto doc = load_document(testing::fixture_path("plan.json"));
  ASSERT_TRUE(doc.ok()) << doc.error().message;
  const Page page = plan_page(*doc);
  EXPECT_TRUE(page.verdict.tied);
  EXPECT_EQ(
      page.verdict.headline.rfind("Statistically tied on cost: ntp_power_boost@30% and ntp", 0), 0u)
      << page.verdict.headline;
  const auto costs = std::find_if(page.sections.begin(), page.sections.end(),
                                  [](const Section& s) { return s.id == "costs"; });
  ASSERT_NE(costs, page.sections.end());
  ASSERT_EQ(costs->table.rows.size(), 2u);  // the two families that meet the target
  EXPECT_NE(costs->table.rows[0].back().find("tied"), std::string::npos);
  EXPECT_EQ(costs->table.rows[1].back(), "pick");
  EXPECT_TRUE(std::any_of(page.warnings.begin(), page.warnings.end(), [](const std::string& w) {
    return w.find("statistically tied") != std::string::npos;
  }));
  const std::string html = render_page_html(page);
  testing::expect_balanced(html);
  testing::expect_self_contained(html);
  EXPECT_NE(html.find("<section id=\"context\">"), std::string::npos);
  EXPECT_NE(html.find("$3.5/GPU-hour"), std::string::npos);
  const std::string md = render_page_markdown(page, "p");
  EXPECT_NE(md.find("![Pareto frontier: cost against time to train](p-plan-frontier.svg)"),
            std::string::npos);
  EXPECT_NE(md.find("## Cost breakdown"), std::string::npos);
}

}  // namespace
}  // namespace ntpsim::reports
