// The second check of rates by kind (docs/VALIDATION.md, "Rates by kind: the InfiniteHBD log
// against Llama 3's Table 5"): the table's reader and its errors, the exact comparison of two
// Poisson rates, the mapping's totals, the rows that agree, and the shipped Llama 3 profile run by
// the failure source against the table's hardware/software split. The rows that differ are in
// known_differences_test.cpp. Fixed seeds; no timings.
#include "tools/validate/llama3_rates.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "tests/validation/fixture.h"

namespace ntpsim::validate {
namespace {

std::string table_path() {
  return std::string(NTPSIM_SOURCE_DIR) + "/" + kLlama3Table;
}

TEST(InterruptionTable, ReadsTheTranscribedTable) {
  auto t = read_interruption_table(table_path());
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t->size(), 18u);
  int64_t sum = 0;
  for (const auto& c : *t) sum += c.count;
  EXPECT_EQ(sum, 419);  // the paper's unexpected interruptions
  EXPECT_EQ(t->front().component, "Faulty GPU");
  EXPECT_EQ(t->front().count, 148);
  EXPECT_EQ(t->front().line, 2);
}

void expect_error(const std::string& text, const std::string& where) {
  auto t = parse_interruption_table(text, "t.csv");
  ASSERT_FALSE(t.ok()) << text;
  EXPECT_NE(t.error().message.find(where), std::string::npos) << t.error().message;
}

TEST(InterruptionTable, BadInputNamesFileAndLine) {
  const std::string h = "component,category,count,printed_pct\n";
  expect_error("", "t.csv:1: empty file");
  expect_error("name,category,count\nA,B,1\n", "t.csv:1: the header");
  expect_error(h, "t.csv:1: no rows");
  expect_error(h + "A,GPU,1,0.1\nB,GPU\n", "t.csv:3: 2 field(s)");
  expect_error(h + "A,GPU,x\n", "t.csv:2: count: \"x\"");
  expect_error(h + "A,GPU,-1\n", "t.csv:2: count: \"-1\"");
  expect_error(h + "A,GPU,1.5\n", "t.csv:2: count: \"1.5\"");
  expect_error(h + "A,GPU,\n", "t.csv:2: count: \"\"");
  expect_error(h + ",GPU,1\n", "t.csv:2: component: empty");
  expect_error(h + "A,GPU,1\n\nA,Host,2\n", "t.csv:4: component \"A\" appears twice");
  expect_error(h + "\"A,B\",GPU,1\n", "t.csv:2: quoted");
  // Blank lines and CRLF endings are accepted.
  auto ok = parse_interruption_table("component,category,count\r\n\r\nA,GPU,3\r\n", "t.csv");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok->at(0).count, 3);
  EXPECT_EQ(ok->at(0).line, 3);
}

TEST(RateComparison, ExactIntervalOfTheRatio) {
  RateComparison same;
  compare_rates(50, 2.0, 50, 2.0, same);
  EXPECT_DOUBLE_EQ(same.ratio, 1.0);
  EXPECT_TRUE(same.agrees);
  // Equal counts and exposures: the interval is symmetric on the log scale.
  EXPECT_NEAR(same.ratio_lo * same.ratio_hi, 1.0, 1e-9);
  RateComparison higher;
  compare_rates(60, 1.0, 20, 1.0, higher);  // three times the rate
  EXPECT_DOUBLE_EQ(higher.ratio, 3.0);
  EXPECT_GT(higher.ratio_lo, 1.0);
  EXPECT_FALSE(higher.agrees);
  // The predicted count is the second rate times the first exposure.
  RateComparison scaled;
  compare_rates(10, 4.0, 5, 1.0, scaled);
  EXPECT_DOUBLE_EQ(scaled.predicted, 20.0);
  EXPECT_LT(scaled.predicted_lo, 20.0);
  EXPECT_GT(scaled.predicted_hi, 20.0);
  EXPECT_LT(scaled.table_lo, 10.0);
  EXPECT_GT(scaled.table_hi, 10.0);
}

const RateComparison& row(const Llama3RateStudy& s, const std::string& group) {
  const auto it = std::find_if(s.rows.begin(), s.rows.end(),
                               [&](const RateComparison& r) { return r.group == group; });
  EXPECT_NE(it, s.rows.end()) << group;
  return *it;
}

TEST(Llama3Rates, MappingTotalsAndTheRowsThatAgree) {
  auto st = llama3_rate_study(testing::scenario("paper/infinitehbd-400.yaml"), table_path());
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_EQ(st->table_total, 419);
  EXPECT_EQ(st->log_nodes, 400);
  // The table grouped as stated (scenarios/failures/llama3.yaml gives the same hardware total).
  EXPECT_EQ(row(*st, "Hardware Failure").table_events, 324);
  EXPECT_EQ(row(*st, "Software Failure").table_events, 63);
  EXPECT_EQ(row(*st, "Other Failure").table_events, 32);
  EXPECT_EQ(row(*st, "hardware: GPU").table_events, 268);
  EXPECT_EQ(row(*st, "hardware: network").table_events, 35);
  EXPECT_EQ(row(*st, "hardware: host").table_events, 21);
  // The log: 584 faults, of which 298 hardware (2.14 per 1000 node-days).
  EXPECT_EQ(row(*st, "all kinds").log_events, 584);
  EXPECT_EQ(row(*st, "Hardware Failure").log_events, 298);
  EXPECT_EQ(row(*st, "hardware: GPU").log_events + row(*st, "hardware: network").log_events +
                row(*st, "hardware: host").log_events,
            298);
  // GPU faults per GPU-day: both clusters have 8 GPUs per server.
  EXPECT_DOUBLE_EQ(row(*st, "hardware: GPU").table_exposure_s,
                   8.0 * row(*st, "hardware: network").table_exposure_s);
  // The comparisons that agree (the others are known differences).
  EXPECT_TRUE(row(*st, "all kinds").agrees);
  EXPECT_TRUE(row(*st, "hardware: network").agrees);
}

TEST(Llama3Rates, ShippedProfileReproducesTheHardwareSoftwareSplit) {
  auto pc = profile_event_counts(testing::scenario("hgx-h100-16k.yaml"),
                                 std::string(NTPSIM_SOURCE_DIR) + "/" + kLlama3Profile, kLlama3Days,
                                 kLlama3ProfileReps);
  ASSERT_TRUE(pc.ok()) << pc.error().message;
  ASSERT_EQ(pc->kinds, (std::vector<std::string>{"hardware", "software"}));
  // The published counts' exact Poisson 95% intervals.
  const int64_t published[2] = {324, 95};
  for (size_t i = 0; i < 2; ++i) {
    RateComparison ci;
    compare_rates(published[i], 1.0, published[i], 1.0, ci);
    EXPECT_GE(pc->mean[i], ci.table_lo) << pc->kinds[i];
    EXPECT_LE(pc->mean[i], ci.table_hi) << pc->kinds[i];
  }
}

}  // namespace
}  // namespace ntpsim::validate
