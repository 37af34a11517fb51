// Trace replay: the published InfiniteHBD trace (counts, rates, repair statistics), mapping,
// looping and time scaling, the ntpsim CSV format, and every bad-trace case.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include <unistd.h>

#include "failure_test_util.h"
#include "sim/failures/trace.h"

namespace ntpsim::sim {
namespace {

using testing::kDay;

const std::string kInfiniteHbd = std::string(NTPSIM_SHARED_DIR) + "/data/traces/infinitehbd-stepfun/fault_trace.json";

TraceConfig hbd_config() {
  TraceConfig c;
  c.format = "infinitehbd";
  c.file = kInfiniteHbd;
  c.component = Component::kNode;
  return c;
}

// 400 nodes of 8 GPUs (the trace's 400 servers; 8 GPUs each is the SOURCE.md assumption).
Scenario hbd_scenario(const TraceConfig& c) {
  Scenario s = testing::scenario_with(50, 64, 8);
  s.failures.trace = c;
  return s;
}

TEST(TraceTest, InfiniteHbdLoadsAllFaults) {
  auto r = load_trace(hbd_config());
  ASSERT_TRUE(r.ok()) << r.error().message;
  const TraceData& d = **r;
  EXPECT_EQ(d.faults.size(), 584u);
  EXPECT_EQ(d.node_names.size(), 231u);
  EXPECT_EQ(d.kind_names, (std::vector<std::string>{"Hardware Failure", "Other Failure", "Software Failure"}));
  EXPECT_EQ(d.open_faults, 0);
  EXPECT_NEAR(d.span_s / kDay, 348.9798, 1e-9);
  std::vector<double> repair_d;
  for (const TraceFault& f : d.faults) repair_d.push_back(f.repair_s / kDay);
  std::sort(repair_d.begin(), repair_d.end());
  double sum = 0;
  for (const double x : repair_d) sum += x;
  // REFERENCES.md: repair median 0.85 d, mean 5.5 d, max 131 d.
  EXPECT_NEAR((repair_d[291] + repair_d[292]) / 2, 0.85, 0.01);
  EXPECT_NEAR(sum / 584, 5.5, 0.05);
  EXPECT_NEAR(repair_d.back(), 131, 0.5);
  EXPECT_GE(repair_d.front(), 0.0);
}

TEST(TraceTest, InfiniteHbdReplaysOn400Nodes) {
  auto trace = load_trace(hbd_config());
  ASSERT_TRUE(trace.ok());
  const Scenario s = hbd_scenario(hbd_config());
  auto t = Topology::build(s.cluster);
  ASSERT_TRUE(t.ok());
  ASSERT_EQ(t->units(Component::kNode), 400);
  auto src = FailureSource::make(s, *t, *trace, 1, 0);
  ASSERT_TRUE(src.ok()) << src.error().message;
  std::vector<FailureEvent> events;
  FailureEvent e;
  while (src->next(e)) events.push_back(e);
  ASSERT_EQ(events.size(), 584u);  // without loop the trace ends
  EXPECT_FALSE(src->next(e));
  double hardware = 0;
  for (const FailureEvent& ev : events) {
    EXPECT_LT(ev.time.seconds(), 349 * kDay);
    EXPECT_EQ(ev.component, Component::kNode);
    EXPECT_EQ(ev.gpus, t->blast_radius(Component::kNode, ev.unit));
    EXPECT_LT(ev.unit, 231);  // modulo: node i in order of first appearance -> unit i
    EXPECT_TRUE(ev.interrupts);
    hardware += src->kind_names()[ev.kind] == "Hardware Failure" ? 1 : 0;
  }
  EXPECT_NEAR(584.0 / (400 * 348) * 1000, 4.2, 0.01);                              // per 1000 node-days
  EXPECT_NEAR(static_cast<double>(events.size()) / (400 * events.back().time.seconds() / kDay) * 1000, 4.2, 0.05);
  EXPECT_NEAR(hardware / (400 * 348) * 1000, 2.14, 0.01);
  // The expected interruption rate of the whole cluster is the trace's mean rate.
  EXPECT_NEAR(expected_interruption_rate_per_s(s, *t, t->gpus(), trace->get()) * (*trace)->span_s, 584, 1e-9);
  // A job on the first 800 GPUs (nodes 0..99) sees exactly the faults mapped there.
  const double in_job = static_cast<double>(std::count_if(events.begin(), events.end(),
                                                          [](const FailureEvent& ev) { return ev.gpus.first < 800; }));
  EXPECT_GT(in_job, 100);
  EXPECT_NEAR(expected_interruption_rate_per_s(s, *t, 800, trace->get()) * (*trace)->span_s, in_job, 1e-9);
}

TEST(TraceTest, RandomPlacementIsInjectiveAndSeeded) {
  auto trace = load_trace(hbd_config());
  ASSERT_TRUE(trace.ok());
  TraceConfig c = hbd_config();
  c.mapping = "random";
  const Scenario s = hbd_scenario(c);
  auto t = Topology::build(s.cluster);
  ASSERT_TRUE(t.ok());
  auto units_of = [&](uint64_t replication) {
    const auto events = testing::collect(s, *t, 8, replication, 1e12, *trace);
    EXPECT_EQ(events.size(), 584u);
    std::vector<int64_t> units;
    for (const FailureEvent& ev : events) units.push_back(ev.unit);
    return units;
  };
  const auto a = units_of(0), b = units_of(0), c1 = units_of(1);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c1);
  EXPECT_EQ(std::set<int64_t>(a.begin(), a.end()).size(), 231u);  // 231 trace nodes, 231 units
  EXPECT_GT(*std::max_element(a.begin(), a.end()), 231);           // spread over all 400
}

TEST(TraceTest, LoopAndTimeScale) {
  auto trace = load_trace(hbd_config());
  ASSERT_TRUE(trace.ok());
  TraceConfig c = hbd_config();
  c.loop = true;
  c.time_scale = 0.5;
  c.interrupts = false;
  Scenario s = hbd_scenario(c);
  s.cluster.domains = 10;  // 80 nodes: modulo mapping folds the 231 trace nodes
  auto t = Topology::build(s.cluster);
  ASSERT_TRUE(t.ok());
  const double span = (*trace)->span_s * 0.5;
  const auto events = testing::collect(s, *t, 1, 0, 3 * span, *trace);
  ASSERT_EQ(events.size(), 3 * 584u);
  const TraceFault& first = (*trace)->faults[0];
  EXPECT_NEAR(events[0].time.seconds(), first.start_s * 0.5, 1e-6);
  EXPECT_NEAR(events[584].time.seconds(), span + first.start_s * 0.5, 1e-6);
  EXPECT_NEAR(events[584].repair.seconds(), first.repair_s * 0.5, 1e-6);
  EXPECT_EQ(events[584].unit, events[0].unit);
  for (const FailureEvent& ev : events) {
    EXPECT_LT(ev.unit, 80);
    EXPECT_FALSE(ev.interrupts);
  }
}

TEST(TraceTest, CsvFormatWithUnitsAndComponents) {
  const std::string text =
      "# a hand-written trace\n"
      "#! time_unit: h\n"
      "#! span: 100\n"
      "start,end,unit,kind,component\n"
      "1, 3, rack7, power, domain\n"
      "2.5,2.5,n1,soft,\n"
      "# comment between rows\n"
      "10,,n2,hard,gpu\r\n";
  auto r = parse_csv_trace(text, "t.csv");
  ASSERT_TRUE(r.ok()) << r.error().message;
  const TraceData& d = *r;
  ASSERT_EQ(d.faults.size(), 3u);
  EXPECT_EQ(d.node_names, (std::vector<std::string>{"rack7", "n1", "n2"}));
  EXPECT_EQ(d.kind_names, (std::vector<std::string>{"power", "soft", "hard"}));
  EXPECT_DOUBLE_EQ(d.faults[0].start_s, 3600);
  EXPECT_DOUBLE_EQ(d.faults[0].repair_s, 7200);
  EXPECT_TRUE(d.faults[0].has_component);
  EXPECT_EQ(d.faults[0].component, Component::kDomain);
  EXPECT_FALSE(d.faults[1].has_component);
  EXPECT_DOUBLE_EQ(d.faults[1].repair_s, 0);
  EXPECT_EQ(d.faults[2].component, Component::kGpu);
  EXPECT_DOUBLE_EQ(d.span_s, 100 * 3600.0);
  EXPECT_EQ(d.open_faults, 1);  // no end: repair runs to the end of the trace
  EXPECT_DOUBLE_EQ(d.faults[2].repair_s, 90 * 3600.0);
}

// A spreadsheet's UTF-8 byte order mark before the header is not part of it; elsewhere a header
// that is not one is echoed without the invisible bytes' confusion (and clipped when huge).
TEST(TraceTest, CsvByteOrderMarkIsNotPartOfTheHeader) {
  auto r = parse_csv_trace("\xEF\xBB\xBFstart,end,unit,kind\n0,3600,n1,gpu\n", "bom.csv");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->faults.size(), 1u);
  EXPECT_EQ(r->node_names, (std::vector<std::string>{"n1"}));
  auto directive =
      parse_csv_trace("\xEF\xBB\xBF#! time_unit: h\nstart,end,unit,kind\n1,2,n1,gpu\n", "b.csv");
  ASSERT_TRUE(directive.ok()) << directive.error().message;
  EXPECT_DOUBLE_EQ(directive->faults[0].start_s, 3600);
  auto bad = parse_csv_trace("\xEF\xBB\xBFstart,end,unit\n", "bom.csv");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message.find("\xEF\xBB\xBF"), std::string::npos) << bad.error().message;
  EXPECT_NE(bad.error().message.find("bom.csv:1: expected the column header"), std::string::npos);
  auto huge = parse_csv_trace(std::string(200000, 'x') + "\n", "big.csv");
  ASSERT_FALSE(huge.ok());
  EXPECT_LT(huge.error().message.size(), 400u);
  EXPECT_NE(huge.error().message.find("(200000 bytes in all)"), std::string::npos);
}

TEST(TraceTest, CsvRowsReplayOnTheirOwnComponentClass) {
  const std::string text =
      "start,end,unit,kind,component\n"
      "10,20,r0,power,domain\n"
      "10,40,g0,hbm,gpu\n"
      "30,31,n5,nic,\n";
  auto parsed = parse_csv_trace(text, "t.csv");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  auto trace = std::make_shared<const TraceData>(std::move(parsed).value());
  TraceConfig c;
  c.format = "csv";
  c.file = "t.csv";
  c.component = Component::kNode;
  Scenario s = testing::scenario_with(2, 8, 4);  // 16 GPUs, 4 nodes, 2 domains
  s.failures.trace = c;
  auto t = Topology::build(s.cluster);
  ASSERT_TRUE(t.ok());
  const auto events = testing::collect(s, *t, 1, 0, 1e9, trace);
  ASSERT_EQ(events.size(), 3u);
  // Trace nodes by first appearance: r0 -> 0, g0 -> 1, n5 -> 2 (modulo each class's unit count).
  EXPECT_EQ(events[0].component, Component::kDomain);
  EXPECT_EQ(events[0].gpus, (GpuRange{0, 8}));
  EXPECT_EQ(events[1].component, Component::kGpu);
  EXPECT_EQ(events[1].gpus, (GpuRange{1, 1}));
  EXPECT_DOUBLE_EQ(events[1].repair.seconds(), 30);
  EXPECT_EQ(events[2].component, Component::kNode);
  EXPECT_EQ(events[2].gpus, (GpuRange{8, 4}));
  EXPECT_EQ(events[0].time, events[1].time);  // simultaneous rows stay in file order
}

TEST(TraceTest, CsvWriterRoundTripsTheInfiniteHbdTrace) {
  auto trace = load_trace(hbd_config());
  ASSERT_TRUE(trace.ok());
  const TraceData& a = **trace;
  auto csv = to_csv_trace(a);
  ASSERT_TRUE(csv.ok()) << csv.error().message;
  auto back = parse_csv_trace(*csv, "converted.csv");
  ASSERT_TRUE(back.ok()) << back.error().message;
  const TraceData& b = *back;
  EXPECT_EQ(b.node_names, a.node_names);
  EXPECT_EQ(b.kind_names, a.kind_names);
  EXPECT_DOUBLE_EQ(b.span_s, a.span_s);
  ASSERT_EQ(b.faults.size(), a.faults.size());
  for (size_t i = 0; i < a.faults.size(); ++i) {
    EXPECT_DOUBLE_EQ(b.faults[i].start_s, a.faults[i].start_s) << i;
    EXPECT_NEAR(b.faults[i].repair_s, a.faults[i].repair_s, 1e-6) << i;
    EXPECT_EQ(b.faults[i].node, a.faults[i].node) << i;
    EXPECT_EQ(b.faults[i].kind, a.faults[i].kind) << i;
  }
  TraceData bad = a;
  bad.node_names[0] = "a,b";
  auto r = to_csv_trace(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("node 'a,b' cannot be written"), std::string::npos) << r.error().message;
}

// Writes `text` to a fresh file in the test's temporary folder and loads it.
Result<std::shared_ptr<const TraceData>> load_text(const std::string& format, const std::string& name,
                                                   const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("ntpsim_failures_" + std::to_string(::getpid()) + "_" + name);
  std::ofstream(path, std::ios::binary) << text;
  TraceConfig c;
  c.format = format;
  c.file = path.string();
  auto r = load_trace(c);
  std::filesystem::remove(path);
  return r;
}

void expect_bad(const Result<std::shared_ptr<const TraceData>>& r, const std::vector<std::string>& needles) {
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().exit_code, ExitCode::kBadInput);
  for (const std::string& n : needles) EXPECT_NE(r.error().message.find(n), std::string::npos) << r.error().message;
}

std::string hbd_event(const std::string& node, double t, const std::string& type, const std::string& level = "Hardware Failure") {
  return R"({"node_id": ")" + node + R"(", "event_time": )" + std::to_string(t) + R"(, "event_type": ")" + type +
         R"(", "fault_type": {"Level": ")" + level + R"(", "Class": "GPU", "Desc": "x"}})";
}

TEST(TraceTest, BadInfiniteHbdTraces) {
  expect_bad(load_text("infinitehbd", "empty.json", "  \n"), {"_empty.json", "empty trace file"});
  expect_bad(load_text("infinitehbd", "garbage.json", "[{\"node_id\": \n oops"), {"garbage.json:2:", "not valid JSON"});
  expect_bad(load_text("infinitehbd", "obj.json", "{}"), {"expected a JSON list"});
  expect_bad(load_text("infinitehbd", "none.json", "[]"), {"holds no events"});
  expect_bad(load_text("infinitehbd", "unsorted.json", "[" + hbd_event("a", 2, "fault_start") + "," +
                                                            hbd_event("b", 1, "fault_start") + "]"),
             {"unsorted.json: entry 2 (node_id b, event_time 1)", "not sorted"});
  expect_bad(load_text("infinitehbd", "unknown.json", "[" + hbd_event("a", 1, "fault_start") + "," +
                                                          hbd_event("b", 2, "fault_end") + "]"),
             {"entry 2 (node_id b, event_time 2)", "unknown node"});
  expect_bad(load_text("infinitehbd", "unmatched.json", "[" + hbd_event("a", 1, "fault_start") + "," +
                                                            hbd_event("a", 2, "fault_end") + "," +
                                                            hbd_event("a", 3, "fault_end") + "]"),
             {"entry 3", "fault_end without a matching open fault_start"});
  expect_bad(load_text("infinitehbd", "wrongtype.json", "[" + hbd_event("a", 1, "fault_start") + "," +
                                                             hbd_event("a", 2, "fault_end", "Software Failure") + "]"),
             {"entry 2", "without a matching"});
  expect_bad(load_text("infinitehbd", "type.json", "[" + hbd_event("a", 1, "fault_pause") + "]"),
             {"entry 1", "unknown event type 'fault_pause'"});
  expect_bad(load_text("infinitehbd", "neg.json", "[" + hbd_event("a", -1, "fault_start") + "]"),
             {"entry 1", "event_time", ">= 0"});
  expect_bad(load_text("infinitehbd", "key.json", R"([{"node_id": "a", "event_time": 1, "event_type": "fault_start",
      "fault_type": {"Level": "x"}, "extra": 1}])"),
             {"unknown key 'extra'"});
  expect_bad(load_text("infinitehbd", "missing.json", R"([{"node_id": "a", "event_type": "fault_start", "fault_type": {"Level": "x"}}])"),
             {"entry 1", "missing event_time"});
  expect_bad(load_text("infinitehbd", "notobj.json", "[3]"), {"entry 1", "expected an object"});
  TraceConfig missing;
  missing.format = "infinitehbd";
  missing.file = "/nonexistent/fault_trace.json";
  expect_bad(load_trace(missing), {"/nonexistent/fault_trace.json", "cannot read trace"});
  missing.format = "yaml";
  expect_bad(load_trace(missing), {"failures.trace.format", "unknown format 'yaml'"});
}

TEST(TraceTest, FaultStartWithoutEndRunsToTraceEnd) {
  auto r = load_text("infinitehbd", "open.json", "[" + hbd_event("a", 1, "fault_start") + "," +
                                                     hbd_event("b", 2, "fault_start") + "," +
                                                     hbd_event("b", 5, "fault_end") + "]");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ((*r)->open_faults, 1);
  EXPECT_DOUBLE_EQ((*r)->faults[0].repair_s, 4 * kDay);  // open from day 1 to the last event, day 5
  EXPECT_DOUBLE_EQ((*r)->faults[1].repair_s, 3 * kDay);
}

TEST(TraceTest, BadCsvTraces) {
  const std::string header = "start,end,unit,kind\n";
  expect_bad(load_text("csv", "empty.csv", ""), {"empty trace file"});
  expect_bad(load_text("csv", "garbage.csv", "\x01\x02garbage\n1,2,3\n"), {"garbage.csv:1:", "column header"});
  expect_bad(load_text("csv", "noheader.csv", "# only a comment\n"), {"no column header"});
  expect_bad(load_text("csv", "unsorted.csv", header + "5,6,a,x\n4,6,b,x\n"), {"unsorted.csv:3:", "not sorted"});
  expect_bad(load_text("csv", "negative.csv", header + "5,4,a,x\n"), {"negative.csv:2:", "negative duration"});
  expect_bad(load_text("csv", "number.csv", header + "five,6,a,x\n"), {"number.csv:2:", "start"});
  expect_bad(load_text("csv", "fields.csv", header + "1,2,a\n"), {"fields.csv:2:", "expected 4 fields, got 3"});
  expect_bad(load_text("csv", "directive.csv", "#! time_units: h\n" + header), {"directive.csv:1:", "unknown directive"});
  expect_bad(load_text("csv", "unit.csv", "#! time_unit: weeks\n" + header), {"unit.csv:1:", "unknown unit 'weeks'"});
  expect_bad(load_text("csv", "component.csv", "start,end,unit,kind,component\n1,2,a,x,switch\n"),
             {"component.csv:2:", "unknown 'switch'"});
  expect_bad(load_text("csv", "span.csv", "#! span: 3\n" + header + "1,5,a,x\n"), {"span.csv:1:", "shorter"});
  expect_bad(load_text("csv", "rows.csv", header), {"holds no faults"});
}

TEST(TraceTest, GiganticTraceIsRefusedBeforeReading) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("ntpsim_failures_" + std::to_string(::getpid()) + "_gigantic.json");
  {
    std::ofstream(path, std::ios::binary) << "[";
  }
  std::filesystem::resize_file(path, static_cast<uintmax_t>(kMaxTraceBytes) + 1);  // sparse: no disk used
  TraceConfig c;
  c.format = "infinitehbd";
  c.file = path.string();
  auto r = load_trace(c);
  std::filesystem::remove(path);
  expect_bad(r, {"_gigantic.json", "over the limit of 67108864 bytes"});
}

TEST(TraceTest, ReplayValidatesItsConfiguration) {
  auto trace = load_trace(hbd_config());
  ASSERT_TRUE(trace.ok());
  TraceConfig c = hbd_config();
  c.mapping = "roundrobin";
  Scenario s = hbd_scenario(c);
  auto t = Topology::build(s.cluster);
  ASSERT_TRUE(t.ok());
  auto r = FailureSource::make(s, *t, *trace, 1, 0);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("failures.trace.mapping"), std::string::npos);
  s.failures.trace->mapping = "modulo";
  s.failures.trace->time_scale = 0;
  r = FailureSource::make(s, *t, *trace, 1, 0);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("failures.trace.time_scale"), std::string::npos);
}

TEST(TraceSanity, TimesPastTheHorizonLimitAreRefused) {
  // 1e300 days is finite in seconds (the parser accepts it) but no replay can reach it.
  expect_bad(load_text("csv", "far.csv",
                       "#! time_unit: d\nstart,end,unit,kind\n1,2,n0,hard\n1e300,,n1,hard\n"),
             {"far.csv:4: a fault from 1e+300 d to 1e+300 d reaches past the 1000-year limit"});
  expect_bad(load_text("csv", "span.csv",
                       "#! time_unit: d\n#! span: 4e5\nstart,end,unit,kind\n1,2,n0,hard\n"),
             {"span.csv: span 400000 d is past the 1000-year limit"});
  expect_bad(load_text("infinitehbd", "far.json",
                       R"([{"node_id": "a", "event_time": 1e300, "event_type": "fault_start",
                            "fault_type": {"Level": "Hardware Failure"}}])"),
             {"far.json: entry 1: a fault from 1e+300 d"});
  // 999 years is within the limit.
  auto ok =
      load_text("csv", "near.csv", "#! time_unit: d\nstart,end,unit,kind\n1,364635,n0,hard\n");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
}

TEST(TraceSanity, ExactDuplicateRowsAreCountedAndWarnedAbout) {
  auto r = load_text(
      "csv", "dup.csv",
      "start,end,unit,kind\n0,5,n0,hard\n0,5,n1,hard\n0,5,n0,hard\n0,6,n0,hard\n3,4,n2,soft\n"
      "3,4,n2,soft\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ((*r)->duplicates, 2);
  ASSERT_EQ((*r)->warnings.size(), 1u);
  EXPECT_EQ((*r)->warnings[0],
            (*r)->file + ":4: 2 fault(s) repeat an earlier row exactly (first: this one repeats " +
                (*r)->file + ":2); each counts as a fault");
  auto clean = load_text("csv", "clean.csv", "start,end,unit,kind\n0,5,n0,hard\n0,5,n1,hard\n");
  ASSERT_TRUE(clean.ok());
  EXPECT_EQ((*clean)->duplicates, 0);
  EXPECT_TRUE((*clean)->warnings.empty());
}

}  // namespace
}  // namespace ntpsim::sim
