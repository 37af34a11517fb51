// Hostile trace replay (limits): a looped trace with a tiny span repeats without end
// (a span of 1 ms over a one-year horizon is 3e10 events per replication, a run that never
// finishes). FailureSource::make refuses a loop that yields more than 1e7 events per replication
// with a bad-input Error naming failures.trace.loop; ordinary loops are unaffected.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "sim/cluster/topology.h"
#include "sim/failures/failure_source.h"
#include "sim/failures/trace.h"

namespace ntpsim::sim {
namespace {

constexpr double kYear = 365.0 * 86400;

Scenario looped_scenario(double horizon_s, double time_scale) {
  Scenario s;
  s.cluster.domains = 4;
  s.cluster.gpus_per_domain = 8;
  s.cluster.gpus_per_node = 4;
  s.horizon_s = horizon_s;
  TraceConfig tc;
  tc.format = "csv";
  tc.file = "loop.csv";
  tc.loop = true;
  tc.time_scale = time_scale;
  s.failures.trace = tc;
  return s;
}

std::shared_ptr<const TraceData> trace_of(const std::string& csv) {
  Result<TraceData> t = parse_csv_trace(csv, "loop.csv");
  EXPECT_TRUE(t.ok()) << t.error().message;
  return std::make_shared<const TraceData>(std::move(t).value());
}

TEST(TraceLoopLimit, TinySpanLoopIsRefused) {
  const Scenario s = looped_scenario(kYear, 1.0);
  const Result<Topology> topo = Topology::build(s.cluster);
  ASSERT_TRUE(topo.ok()) << topo.error().message;
  const auto trace = trace_of("#! span: 0.001\nstart,end,unit,kind\n0,0,n0,x\n");
  const Result<FailureSource> src = FailureSource::make(s, *topo, trace, 1, 0);
  ASSERT_FALSE(src.ok());
  EXPECT_EQ(src.error().exit_code, ExitCode::kBadInput);
  EXPECT_EQ(src.error().message,
            "failures.trace.loop: loop.csv: looping 1 faults every 0.001 s yields about 3.15e+10 "
            "events per replication; more than 1e+07 cannot be simulated");
}

TEST(TraceLoopLimit, TimeScaleCountsToo) {
  // A one-hour span compressed 1e6 times (the smallest time_scale) loops every 3.6 ms.
  const auto trace = trace_of("#! time_unit: h\n#! span: 1\nstart,end,unit,kind\n0,0.5,n0,x\n");
  const Scenario s = looped_scenario(kYear, 1e-6);
  const Result<Topology> topo = Topology::build(s.cluster);
  ASSERT_TRUE(topo.ok());
  const Result<FailureSource> src = FailureSource::make(s, *topo, trace, 1, 0);
  ASSERT_FALSE(src.ok());
  EXPECT_NE(src.error().message.find("failures.trace.loop"), std::string::npos)
      << src.error().message;
}

TEST(TraceLoopLimit, DailyLoopOverAYearIsAccepted) {
  const Scenario s = looped_scenario(kYear, 1.0);
  const Result<Topology> topo = Topology::build(s.cluster);
  ASSERT_TRUE(topo.ok());
  const auto trace = trace_of("#! time_unit: d\n#! span: 1\nstart,end,unit,kind\n0.5,0.75,n0,x\n");
  Result<FailureSource> src = FailureSource::make(s, *topo, trace, 1, 0);
  ASSERT_TRUE(src.ok()) << src.error().message;
  int events = 0;
  FailureEvent e;
  while (src->next(e) && e.time.seconds() < kYear) ++events;
  EXPECT_EQ(events, 365);
}

}  // namespace
}  // namespace ntpsim::sim
