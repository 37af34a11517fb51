// Reading results documents: the fixture round-trips into the structs, and bad documents give
// bad-input errors that name the file and the field path (or line:col for JSON syntax).
#include "reports/results.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include "reports/content.h"
#include "tests/reports/fixture.h"

namespace ntpsim::reports {
namespace {

using testing::small_results;

// A minimal valid run document, as text, for the error tests to break.
std::string minimal(const std::string& strategy_summary = R"({"goodput": {"mean": 0.9,
    "ci95_lo": 0.89, "ci95_hi": 0.91, "n": 10}})") {
  return R"({"schema": "ntpsim-results/1", "kind": "run",
    "context": {"version": "0.1.0", "git_sha": "abc", "build_type": "Release",
      "scenario_name": "s", "scenario_hash": "fnv1a64:00", "seed": 7, "replications": 10,
      "hardware_profile": "h100-sxm", "profile_origin": "measured"},
    "metrics": [{"key": "goodput", "label": "Goodput", "unit": "fraction"}],
    "strategies": [{"name": "a", "summary": )" +
         strategy_summary + "}]}";
}

TEST(Results, ReadsTheFixture) {
  const Results r = small_results();
  EXPECT_EQ(r.kind, "run");
  EXPECT_EQ(r.context.seed, 42u);
  EXPECT_EQ(r.context.replications, 8);
  EXPECT_EQ(r.context.profile_origin, "spec");
  ASSERT_EQ(r.strategies.size(), 3u);
  EXPECT_EQ(r.strategies[2].label, "NTP");
  ASSERT_EQ(r.strategies[0].replications.size(), 8u);
  EXPECT_DOUBLE_EQ(r.strategies[0].replications[0].at("goodput"), 0.933);
  EXPECT_DOUBLE_EQ(r.strategies[0].summary.at("goodput").mean, 0.933);
  EXPECT_EQ(r.metric("badput_rollback").label, "Lost work (rollback)");
  EXPECT_EQ(r.metric("unknown_key").label, "unknown_key");
  ASSERT_EQ(r.paired.size(), 6u);  // every pair of 3 strategies, goodput and energy
  ASSERT_TRUE(r.verdict.has_value());
  EXPECT_EQ(r.verdict->winner, "ntp");
  EXPECT_EQ(r.verdict->runner_up, "dp_drop");
  EXPECT_FALSE(r.verdict->tied);
  ASSERT_TRUE(r.timeline.has_value());
  ASSERT_EQ(r.timeline->strategies.size(), 3u);
  // Timeline strategies follow the order of `strategies`, not the JSON object's key order.
  EXPECT_EQ(r.timeline->strategies[0].strategy, "checkpoint_restart");
  EXPECT_EQ(r.timeline->strategies[2].strategy, "ntp");
  EXPECT_EQ(r.timeline->failures.size(), 4u);
  EXPECT_FALSE(r.sweep.has_value());
  EXPECT_TRUE(r.scenario.is_object());
}

TEST(Results, GoodputAndBadputSumToOneInTheFixture) {
  for (const auto& s : small_results().strategies) {
    for (const auto& rep : s.replications) {
      double sum = rep.at("goodput");
      for (const auto& k : badput_keys()) sum += rep.at(k);
      EXPECT_NEAR(sum, 1.0, 1e-9) << s.name;
    }
  }
}

TEST(Results, MinimalDocumentIsEnough) {
  auto r = parse_results(minimal(), "m.json");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->strategies[0].label, "a");  // label defaults to the name
  EXPECT_TRUE(std::isnan(r->strategies[0].summary.at("goodput").p50));  // absent -> NaN
}

TEST(Results, NullNumberReadsAsNaN) {
  auto r = parse_results(
      minimal(R"({"goodput": {"mean": null, "ci95_lo": 0.1, "ci95_hi": 0.2, "n": 3}})"), "m.json");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(std::isnan(r->strategies[0].summary.at("goodput").mean));
}

TEST(Results, EachStrategysCheckpointIntervalIsShown) {
  const std::string doc = R"({"schema": "ntpsim-results/1", "kind": "run",
    "context": {"version": "0.1.0", "git_sha": "abc", "build_type": "Release",
      "scenario_name": "s", "scenario_hash": "fnv1a64:00", "seed": 7, "replications": 10,
      "hardware_profile": "h100-sxm", "profile_origin": "measured", "horizon_s": 86400,
      "checkpoint_interval_s": null, "failures_during_pause": "ignore"},
    "metrics": [{"key": "goodput", "label": "Goodput", "unit": "fraction"}],
    "strategies": [
      {"name": "a", "checkpoint_interval_s": 900,
       "summary": {"goodput": {"mean": 0.9, "ci95_lo": 0.89, "ci95_hi": 0.91, "n": 10}}},
      {"name": "b", "checkpoint_interval_s": 86400,
       "summary": {"goodput": {"mean": 0.95, "ci95_lo": 0.94, "ci95_hi": 0.96, "n": 10}}}]})";
  auto r = parse_results(doc, "m.json");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_DOUBLE_EQ(r->strategies[0].checkpoint_interval_s, 900.0);
  std::map<std::string, std::string> rows;
  for (const auto& [k, v] : context_rows(*r)) rows[k] = v;
  EXPECT_EQ(rows.count("Checkpoint interval"), 0u);
  EXPECT_EQ(rows["Checkpoint interval per strategy"], "a: 900 s; b: none (never rolled back)");
  EXPECT_EQ(rows["Failures during a recovery pause"], "ignored (the pause runs on)");
}

// The head of a run document whose strategies include one name under two labels (NTP restarting
// and NTP in place), up to the next top-level key.
constexpr const char* kTwoNtpRuns = R"({"schema": "ntpsim-results/1", "kind": "run",
    "context": {"version": "0.1.0", "git_sha": "abc", "build_type": "Release",
      "scenario_name": "s", "scenario_hash": "fnv1a64:00", "seed": 7, "replications": 10,
      "hardware_profile": "h100-sxm", "profile_origin": "measured"},
    "metrics": [{"key": "goodput", "label": "Goodput", "unit": "fraction"}],
    "strategies": [
      {"name": "checkpoint_restart", "summary": {"goodput": {"mean": 0.8, "ci95_lo": 0.79, "ci95_hi": 0.81, "n": 10}}},
      {"name": "ntp", "label": "ntp", "summary": {"goodput": {"mean": 0.8, "ci95_lo": 0.79, "ci95_hi": 0.81, "n": 10}}},
      {"name": "ntp", "label": "ntp_in_place", "summary": {"goodput": {"mean": 0.9, "ci95_lo": 0.89, "ci95_hi": 0.91, "n": 10}}}],)";

// Two strategies of one name (NTP restarting and NTP in place) are told apart by their labels in
// the paired comparisons, which a document from before labels were written there reads by name.
TEST(Results, PairedComparisonsNameStrategiesByLabel) {
  const std::string head = std::string(kTwoNtpRuns) + R"(
    "paired": [)";
  const std::string with_labels = head + R"(
      {"strategy": "ntp", "baseline": "checkpoint_restart", "metric": "goodput",
       "strategy_label": "ntp", "baseline_label": "checkpoint_restart",
       "mean": 0.0, "ci95_lo": -0.01, "ci95_hi": 0.01, "n": 10},
      {"strategy": "ntp", "baseline": "checkpoint_restart", "metric": "goodput",
       "strategy_label": "ntp_in_place", "baseline_label": "checkpoint_restart",
       "mean": 0.1, "ci95_lo": 0.09, "ci95_hi": 0.11, "n": 10}]})";
  auto r = parse_results(with_labels, "m.json");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->paired.size(), 2u);
  EXPECT_EQ(r->paired[0].strategy, "ntp");
  EXPECT_EQ(r->paired[1].strategy, "ntp_in_place");
  EXPECT_EQ(r->paired[1].baseline, "checkpoint_restart");
  const Chart ch = paired_chart(*r);
  ASSERT_EQ(ch.table.rows.size(), 2u);
  EXPECT_EQ(ch.table.rows[0][0], "ntp");
  EXPECT_EQ(ch.table.rows[1][0], "ntp_in_place");
  const std::string old = head + R"(
      {"strategy": "ntp", "baseline": "checkpoint_restart", "metric": "goodput",
       "mean": 0.0, "ci95_lo": -0.01, "ci95_hi": 0.01, "n": 10}]})";
  auto o = parse_results(old, "m.json");
  ASSERT_TRUE(o.ok()) << o.error().message;
  EXPECT_EQ(o->paired[0].strategy, "ntp");
}

// The timeline is keyed by label, so a strategy that runs twice under one name keeps both
// tracks, in the strategies' order; a document keyed by name (before labels) still reads.
TEST(Results, TimelineTracksAreKeyedByLabel) {
  const std::string head = std::string(kTwoNtpRuns) + R"(
    "timeline": {"replication": 0, "horizon_s": 10, "domains": 2, "gpus_per_domain": 8,
      "failures": [], "strategies": {)";
  auto track = [](double throughput) {
    return fmt::format(R"({{"segments": [{{"t_s": 0, "end_s": 10, "state": "running",
        "throughput": {}, "usable_gpus": 16, "failed_gpus": 0}}]}})",
                       throughput);
  };
  auto r = parse_results(
      head + R"("ntp_in_place": )" + track(0.9) + R"(, "ntp": )" + track(0.8) + "}}}",
      "m.json");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_TRUE(r->timeline.has_value());
  ASSERT_EQ(r->timeline->strategies.size(), 2u);
  EXPECT_EQ(r->timeline->strategies[0].strategy, "ntp");
  EXPECT_EQ(r->timeline->strategies[0].segments.at(0).throughput, 0.8);
  EXPECT_EQ(r->timeline->strategies[1].strategy, "ntp_in_place");
  EXPECT_EQ(r->timeline->strategies[1].segments.at(0).throughput, 0.9);
  auto old = parse_results(head + R"("ntp": )" + track(0.9) + "}}}", "m.json");
  ASSERT_TRUE(old.ok()) << old.error().message;
  ASSERT_EQ(old->timeline->strategies.size(), 1u);
  EXPECT_EQ(old->timeline->strategies[0].strategy, "ntp");
}

// The verdict's tied strategies by label; older documents (names only) read the names as labels,
// and a label list that does not match the names is refused with its path.
TEST(Results, TiedStrategiesAreNamedByLabel) {
  const std::string head = R"({"schema": "ntpsim-results/1", "kind": "run",
    "context": {"version": "0.1.0", "git_sha": "abc", "build_type": "Release",
      "scenario_name": "s", "scenario_hash": "fnv1a64:00", "seed": 7, "replications": 10,
      "hardware_profile": "h100-sxm", "profile_origin": "measured"},
    "metrics": [{"key": "goodput", "label": "Goodput", "unit": "fraction"}],
    "strategies": [
      {"name": "ntp", "label": "ntp_a", "summary": {"goodput": {"mean": 0.9, "ci95_lo": 0.89, "ci95_hi": 0.91, "n": 10}}},
      {"name": "ntp", "label": "ntp_b", "summary": {"goodput": {"mean": 0.9, "ci95_lo": 0.89, "ci95_hi": 0.91, "n": 10}}}],
    "verdict": {"metric": "goodput", "winner": "ntp", "winner_label": "ntp_a",
      "winner_mean": 0.9, "tied": true, "tied_with": ["ntp"])";
  auto r = parse_results(head + R"(, "tied_with_labels": ["ntp_b"]}})", "m.json");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_TRUE(r->verdict.has_value());
  EXPECT_EQ(r->verdict->tied_with_labels, std::vector<std::string>{"ntp_b"});
  auto old = parse_results(head + "}}", "m.json");
  ASSERT_TRUE(old.ok()) << old.error().message;
  EXPECT_EQ(old->verdict->tied_with_labels, std::vector<std::string>{"ntp"});
  auto bad = parse_results(head + R"(, "tied_with_labels": ["ntp_b", "x"]}})", "m.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("verdict.tied_with_labels: expected one label per strategy"),
            std::string::npos)
      << bad.error().message;
}

TEST(Results, MissingFieldNamesItsPath) {
  auto r =
      parse_results(minimal(R"({"goodput": {"mean": 0.9, "ci95_hi": 0.91, "n": 10}})"), "m.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().exit_code, ExitCode::kBadInput);
  EXPECT_NE(r.error().message.find("m.json: strategies[0].summary.goodput.ci95_lo: missing"),
            std::string::npos)
      << r.error().message;
}

TEST(Results, WrongTypeNamesItsPath) {
  auto r = parse_results(
      minimal(R"({"goodput": {"mean": "high", "ci95_lo": 0.1, "ci95_hi": 0.2, "n": 3}})"),
      "m.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("strategies[0].summary.goodput.mean: expected a number"),
            std::string::npos)
      << r.error().message;
}

// Values that cannot be true are refused with the file and the field, not drawn.
TEST(Results, RefusesValuesOutsideTheirRange) {
  const std::pair<std::string, std::string> cases[] = {
      {R"({"goodput": {"mean": 7.5, "ci95_lo": 7.4, "ci95_hi": 7.6, "n": 10}})",
       "m.json: strategies[0].summary.goodput.mean: 7.5 is outside [0, 1]"},
      {R"({"goodput": {"mean": -0.2, "ci95_lo": -0.3, "ci95_hi": -0.1, "n": 10}})",
       "m.json: strategies[0].summary.goodput.mean: -0.2 is outside [0, 1]"},
      {R"({"goodput": {"mean": 0.9, "ci95_lo": 0.95, "ci95_hi": 0.99, "n": 10}})",
       "m.json: strategies[0].summary.goodput.ci95_lo: ci95_lo = 0.95 exceeds mean = 0.9"},
      {R"({"goodput": {"mean": 0.9, "ci95_lo": 0.8, "ci95_hi": 0.95, "n": -3}})",
       "m.json: strategies[0].summary.goodput.n: -3 is negative"},
      {R"({"goodput": {"mean": 0.9, "ci95_lo": 0.8, "ci95_hi": 0.95, "p5": 0.9, "p50": 0.8,
          "n": 3}})",
       "m.json: strategies[0].summary.goodput.p50: p5 = 0.9 exceeds p50 = 0.8"},
  };
  for (const auto& [summary, message] : cases) {
    auto r = parse_results(minimal(summary), "m.json");
    ASSERT_FALSE(r.ok()) << summary;
    EXPECT_EQ(r.error().exit_code, ExitCode::kBadInput);
    EXPECT_NE(r.error().message.find(message), std::string::npos) << r.error().message;
  }
  // A per-replication value is checked too, with its index.
  std::string doc = minimal();
  doc.insert(doc.rfind("}]}"), R"(, "replications": [{"goodput": 0.5}, {"goodput": 1.5}])");
  auto r = parse_results(doc, "m.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("strategies[0].replications[1].goodput: 1.5 is outside"),
            std::string::npos)
      << r.error().message;
  // The edges themselves are fine.
  EXPECT_TRUE(parse_results(minimal(R"({"goodput": {"mean": 1.0, "ci95_lo": 1.0, "ci95_hi": 1.0,
      "min": 0.0, "max": 1.0, "n": 1}})"),
                            "m.json")
                  .ok());
}

TEST(Results, SyntaxErrorHasLineAndColumn) {
  auto r = parse_results("{\n  \"schema\": \"ntpsim-results/1\",\n  \"kind\": run\n}", "bad.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().exit_code, ExitCode::kBadInput);
  EXPECT_NE(r.error().message.find("bad.json:3:11: not valid JSON"), std::string::npos)
      << r.error().message;
}

TEST(Results, RejectsOtherSchemasAndKinds) {
  std::string doc = minimal();
  auto r = parse_results(std::string(doc).replace(doc.find("ntpsim-results/1"), 16, "other/2"),
                         "m.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("schema"), std::string::npos);
  auto k = parse_results(std::string(doc).replace(doc.find("\"run\""), 5, "\"plan\""), "m.json");
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.error().message.find("kind"), std::string::npos);
}

TEST(Results, SweepNeedsItsSweepBlock) {
  std::string doc = minimal();
  auto r = parse_results(std::string(doc).replace(doc.find("\"run\""), 5, "\"sweep\""), "m.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("sweep: missing"), std::string::npos) << r.error().message;
}

TEST(Results, RejectsGapsBetweenTimelineSegments) {
  std::string doc = minimal();
  doc.insert(doc.size() - 1, R"(, "timeline": {"horizon_s": 10, "strategies": {"a": {"segments": [
      {"t_s": 0, "end_s": 4, "state": "running", "throughput": 1, "usable_gpus": 8, "failed_gpus": 0},
      {"t_s": 5, "end_s": 10, "state": "running", "throughput": 1, "usable_gpus": 8, "failed_gpus": 0}
    ]}}})");
  auto r = parse_results(doc, "m.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("timeline.strategies.a.segments[1].t_s: segments must be "
                                   "contiguous"),
            std::string::npos)
      << r.error().message;
}

TEST(Results, MissingFileIsBadInput) {
  auto r = load_results("/nonexistent/results.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().exit_code, ExitCode::kBadInput);
  EXPECT_NE(r.error().message.find("/nonexistent/results.json"), std::string::npos);
}

}  // namespace
}  // namespace ntpsim::reports
