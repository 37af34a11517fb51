// The Perfetto / Chrome trace-event JSON: the structure the Trace Event Format requires (phases,
// microsecond integer timestamps, metadata names, slices on one track that do not overlap) and
// the content promised (a job track per strategy, a track per domain that changed state,
// counters for throughput and failed GPUs).
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "reports/report.h"
#include "tests/reports/fixture.h"

namespace ntpsim::reports {
namespace {

using nlohmann::json;

class Trace : public ::testing::Test {
 protected:
  Results results_ = testing::small_results();
  json doc_ = json::parse(render_timeline(results_));
};

TEST_F(Trace, TopLevelIsTheJsonObjectFormat) {
  ASSERT_TRUE(doc_.is_object());
  ASSERT_TRUE(doc_["traceEvents"].is_array());
  EXPECT_EQ(doc_["displayTimeUnit"], "ms");
  EXPECT_EQ(doc_["otherData"]["seed"], 42);
  EXPECT_EQ(doc_["otherData"]["scenario_hash"], "fnv1a64:5eed5eed5eed5eed");
}

TEST_F(Trace, EveryEventIsWellFormed) {
  const std::set<std::string> phases = {"X", "i", "C", "M"};
  const std::set<std::string> meta = {"process_name", "thread_name", "process_sort_index",
                                      "thread_sort_index"};
  for (const auto& e : doc_["traceEvents"]) {
    ASSERT_TRUE(e["ph"].is_string()) << e;
    const std::string ph = e["ph"];
    ASSERT_TRUE(phases.count(ph)) << e;
    ASSERT_TRUE(e["pid"].is_number_integer()) << e;
    ASSERT_TRUE(e["name"].is_string()) << e;
    if (ph == "M") {
      EXPECT_TRUE(meta.count(e["name"].get<std::string>())) << e;
      EXPECT_TRUE(e["args"].contains("name") || e["args"].contains("sort_index")) << e;
      continue;
    }
    ASSERT_TRUE(e["ts"].is_number_integer()) << e;  // microseconds
    EXPECT_GE(e["ts"].get<int64_t>(), 0) << e;
    EXPECT_LE(e["ts"].get<int64_t>(), 604800LL * 1000000) << e;
    if (ph == "X") {
      ASSERT_TRUE(e["dur"].is_number_integer()) << e;
      EXPECT_GT(e["dur"].get<int64_t>(), 0) << e;
      EXPECT_TRUE(e["tid"].is_number_integer()) << e;
    }
    if (ph == "i") {
      EXPECT_EQ(e["s"], "t") << e;
    }
    if (ph == "C") {
      ASSERT_TRUE(e["args"].is_object()) << e;
      for (const auto& [k, v] : e["args"].items()) EXPECT_TRUE(v.is_number()) << e;
    }
  }
}

TEST_F(Trace, SlicesOnATrackDoNotOverlapAndTracksAreNamed) {
  std::map<std::pair<int, int>, std::vector<std::pair<int64_t, int64_t>>> tracks;
  std::set<std::pair<int, int>> named_threads;
  std::set<int> named_processes;
  std::set<std::pair<int, int>> used;
  for (const auto& e : doc_["traceEvents"]) {
    const std::string ph = e["ph"];
    const int pid = e["pid"];
    if (ph == "M" && e["name"] == "thread_name") named_threads.insert({pid, e["tid"].get<int>()});
    if (ph == "M" && e["name"] == "process_name") named_processes.insert(pid);
    if (ph == "X" || ph == "i") used.insert({pid, e["tid"].get<int>()});
    if (ph == "X") tracks[{pid, e["tid"]}].emplace_back(e["ts"], e["dur"]);
  }
  for (const auto& t : used) {
    EXPECT_TRUE(named_threads.count(t)) << t.first << "/" << t.second;
    EXPECT_TRUE(named_processes.count(t.first)) << t.first;
  }
  for (auto& [track, slices] : tracks) {
    std::sort(slices.begin(), slices.end());
    for (size_t i = 1; i < slices.size(); ++i) {
      EXPECT_LE(slices[i - 1].first + slices[i - 1].second, slices[i].first)
          << "overlap on " << track.first << "/" << track.second;
    }
  }
}

TEST_F(Trace, HasJobDomainAndCounterTracksPerStrategy) {
  const Timeline& tl = *results_.timeline;
  std::map<int, std::string> process_names;
  std::map<int, size_t> job_slices, domain_threads;
  std::map<int, std::set<std::string>> counters;
  std::set<std::string> job_states;
  for (const auto& e : doc_["traceEvents"]) {
    const int pid = e["pid"];
    if (e["ph"] == "M" && e["name"] == "process_name") process_names[pid] = e["args"]["name"];
    if (e["ph"] == "M" && e["name"] == "thread_name" &&
        e["args"]["name"].get<std::string>().rfind("domain ", 0) == 0)
      ++domain_threads[pid];
    if (e["ph"] == "X" && e["cat"] == "job") {
      ++job_slices[pid];
      job_states.insert(e["name"]);
    }
    if (e["ph"] == "C") counters[pid].insert(e["name"]);
  }
  EXPECT_EQ(process_names[1], "cluster");
  EXPECT_TRUE(counters[1].count("failed"));
  for (size_t i = 0; i < tl.strategies.size(); ++i) {
    const int pid = static_cast<int>(i) + 2;
    const TimelineTrack& st = tl.strategies[i];
    EXPECT_EQ(job_slices[pid], st.segments.size()) << st.strategy;
    std::set<int64_t> domains;
    for (const auto& d : st.domains) domains.insert(d.domain);
    EXPECT_EQ(domain_threads[pid], domains.size()) << st.strategy;
    for (const char* c : {"job throughput", "usable", "failed"})
      EXPECT_TRUE(counters[pid].count(c)) << st.strategy << " " << c;
  }
  EXPECT_EQ(process_names[4], "strategy NTP");
  EXPECT_EQ(job_states,
            (std::set<std::string>{"running", "checkpointing", "recovering", "degraded"}));
}

TEST_F(Trace, ClusterCounterFollowsTheFailures) {
  // Fixture: 1 GPU from day 0.5 to 3.5, 1 GPU for 30 min at day 1.75, 4 GPUs from day 3 to 5,
  // 1 GPU from day 5.17: the peak is 5 failed GPUs, and all are back by the end of day 6.67.
  double peak = -1.0, last = -1.0;
  for (const auto& e : doc_["traceEvents"]) {
    if (e["ph"] != "C" || e["pid"] != 1) continue;
    peak = std::max(peak, e["args"]["GPUs"].get<double>());
    last = e["args"]["GPUs"].get<double>();
  }
  EXPECT_EQ(peak, 5.0);
  EXPECT_EQ(last, 0.0);
}

TEST_F(Trace, DomainSlicesNameTheDegradedTp) {
  bool degraded = false, boosted = false;
  for (const auto& e : doc_["traceEvents"]) {
    if (e["ph"] != "X" || e["cat"] != "domain") continue;
    degraded = degraded || e["name"] == "degraded TP 71";
    boosted = boosted || e["name"] == "boosted TP 71 ×1.15 power";
  }
  EXPECT_TRUE(degraded);
  EXPECT_TRUE(boosted);
}

}  // namespace
}  // namespace ntpsim::reports
