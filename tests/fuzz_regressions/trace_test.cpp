// Fuzz findings in the failure-trace parsers and writer (sim/failures/trace.h; fuzz_trace_csv,
// fuzz_trace_infinitehbd), replayed as plain tests.
//
// Finding 1 (fuzz_trace_csv): a trace whose faults all start at time 0 (span 0) parsed, but
// to_csv_trace wrote "#! span: 0", which the CSV parser refuses, so `ntpsim trace --to-csv` output
// did not load again.
// Finding 2 (fuzz_trace_infinitehbd): a JSON number too large for a double ("2e333") made
// nlohmann::json throw out_of_range (406), which parse_infinitehbd_trace did not catch: the
// exception escaped the parser and terminated the program.
// Finding 3 (fuzz property "times finite"): times finite in days or hours but not in seconds
// (1e305 d) became infinite start times, repairs and spans.
// Finding 4 (fuzz_scenario, same class here): names that are not UTF-8 were accepted and later
// made JSON output (results, check --json) throw; the CSV parser now refuses them.
#include "sim/failures/trace.h"

#include <gtest/gtest.h>

#include <string>

namespace ntpsim::sim {
namespace {

// Parses `text` as CSV, writes it back with to_csv_trace and parses that; both must succeed and
// agree on faults, nodes, kinds and span.
void expect_csv_round_trip(const std::string& text) {
  const Result<TraceData> t = parse_csv_trace(text, "input.csv");
  ASSERT_TRUE(t.ok()) << t.error().message;
  const Result<std::string> csv = to_csv_trace(*t);
  ASSERT_TRUE(csv.ok()) << csv.error().message;
  const Result<TraceData> back = parse_csv_trace(*csv, "written.csv");
  ASSERT_TRUE(back.ok()) << back.error().message << "\n" << *csv;
  EXPECT_EQ(back->span_s, t->span_s);
  EXPECT_EQ(back->node_names, t->node_names);
  EXPECT_EQ(back->kind_names, t->kind_names);
  ASSERT_EQ(back->faults.size(), t->faults.size());
  for (size_t i = 0; i < t->faults.size(); ++i) {
    EXPECT_EQ(back->faults[i].start_s, t->faults[i].start_s) << i;
    EXPECT_EQ(back->faults[i].repair_s, t->faults[i].repair_s) << i;
    EXPECT_EQ(back->faults[i].node, t->faults[i].node) << i;
    EXPECT_EQ(back->faults[i].kind, t->faults[i].kind) << i;
  }
}

TEST(TraceFuzzRegression, ZeroSpanReproducer) {
  // The crashing input from fuzz_trace_csv, byte for byte: one open fault at time 0. Its names are
  // not UTF-8, which the parser now refuses (finding 4); with UTF-8 names it round-trips.
  const std::string crash =
      "# A three-fa time_unit: d\n"
      "start,end,unit,kind\n"
      "0,,1\xff\xff\xff\xff\xff\xff\xff,1\xff\xff\xff\xff\xff\xff\xff\x01"
      "e ntpsim CSi!aVt m\n";
  const Result<TraceData> t = parse_csv_trace(crash, "crash.csv");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().message, "crash.csv:3: not valid UTF-8 (byte 0xFF)");
  expect_csv_round_trip(
      "# A three-fa time_unit: d\n"
      "start,end,unit,kind\n"
      "0,,1\xc3\xbf,1\xc3\xbf\x01"
      "e ntpsim CSi!aVt m\n");
}

TEST(TraceFuzzRegression, ZeroSpanTraceRoundTrips) {
  expect_csv_round_trip("start,end,unit,kind\n0,0,n0,hard\n0,,n1,soft\n");
  const Result<TraceData> t = parse_csv_trace("start,end,unit,kind\n0,0,n0,hard\n", "zero.csv");
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->span_s, 0.0);
  const Result<std::string> csv = to_csv_trace(*t);
  ASSERT_TRUE(csv.ok()) << csv.error().message;
  EXPECT_EQ(csv->find("#! span"), std::string::npos) << *csv;
}

TEST(TraceFuzzRegression, PositiveSpanIsStillWritten) {
  expect_csv_round_trip(
      "#! time_unit: h\n#! span: 8760\nstart,end,unit,kind\n1,3,n0,hard\n10,,n2,soft\n");
  const Result<TraceData> t =
      parse_csv_trace("#! span: 50\nstart,end,unit,kind\n1,3,n0,hard\n", "s.csv");
  ASSERT_TRUE(t.ok()) << t.error().message;
  const Result<std::string> csv = to_csv_trace(*t);
  ASSERT_TRUE(csv.ok()) << csv.error().message;
  EXPECT_NE(csv->find("#! span: 50\n"), std::string::npos) << *csv;
}

TEST(TraceFuzzRegression, HugeJsonNumberIsBadInput) {
  // The crashing input from fuzz_trace_infinitehbd, byte for byte.
  const std::string crash = "\t\t\t\t\t\t2e333a22-f584-4a62-b54a-ff02158bc431x\"}}]";
  const Result<TraceData> t = parse_infinitehbd_trace(crash, "crash.json");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().exit_code, ExitCode::kBadInput);
  EXPECT_NE(t.error().message.find("crash.json: not valid JSON"), std::string::npos)
      << t.error().message;
  // The same number where an event time belongs.
  const Result<TraceData> e = parse_infinitehbd_trace(
      R"([{"node_id": "a", "event_time": 2e333, "event_type": "fault_start",
           "fault_type": {"Level": "x", "Class": "GPU", "Desc": "y"}}])",
      "big.json");
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().exit_code, ExitCode::kBadInput);
  EXPECT_NE(e.error().message.find("number overflow"), std::string::npos) << e.error().message;
}

TEST(TraceFuzzRegression, TimesThatOverflowInSecondsAreBadInput) {
  const Result<TraceData> j = parse_infinitehbd_trace(
      R"([{"node_id": "a", "event_time": 1e305, "event_type": "fault_start",
           "fault_type": {"Level": "x", "Class": "GPU", "Desc": "y"}}])",
      "days.json");
  ASSERT_FALSE(j.ok());
  EXPECT_NE(j.error().message.find("days.json: entry 1"), std::string::npos) << j.error().message;
  EXPECT_NE(j.error().message.find("event_time: must be a finite number of days"),
            std::string::npos)
      << j.error().message;

  const Result<TraceData> c =
      parse_csv_trace("#! time_unit: d\nstart,end,unit,kind\n1,1e305,n0,hard\n", "days.csv");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message, "days.csv:3: time 1e+305 is too large");

  const Result<TraceData> s = parse_csv_trace(
      "#! span: 1e307\n#! time_unit: h\nstart,end,unit,kind\n1,2,n0,hard\n", "span.csv");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "span.csv:1: span 1e+307 is too large");

  // The largest times that are finite in seconds still load.
  const Result<TraceData> ok =
      parse_csv_trace("#! time_unit: d\nstart,end,unit,kind\n1,1e300,n0,hard\n", "ok.csv");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_DOUBLE_EQ(ok->span_s, 1e300 * 86400.0);
}

}  // namespace
}  // namespace ntpsim::sim
