// JobState: the incremental cluster state against brute-force recounts over random failure and
// repair sequences, and the membership rules (spares, in-domain swaps, whole replicas).
#include "sim/engine/job_state.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <string>

#include "models/base/random.h"
#include "tests/sim/sim_fixture.h"

namespace ntpsim::sim {
namespace {

MembershipRules rules_for(int tp, bool reduced, bool spares, bool in_domain, bool full) {
  MembershipRules r;
  r.degree_by_failed.assign(tp + 1, 0);
  for (int k = 0; k <= tp; ++k) r.degree_by_failed[k] = reduced ? (tp - k >= 2 ? tp - k : 0) : 0;
  r.degree_by_failed[0] = tp;
  r.use_spare_domains = spares;
  r.in_domain_spares = in_domain;
  r.needs_full_job = full;
  return r;
}

// 4 job domains + 2 spare domains of 10 GPUs, TP 4: 2 groups + 2 idle GPUs per domain; the job
// is 4 groups x PP 2.
Result<JobLayout> six_domain_layout() {
  Scenario sc = testing::small_scenario(2, 10, 4);
  sc.cluster.domains = 4;
  sc.layout.pp = 2;
  sc.layout.dp = 4;
  return JobLayout::make(sc);
}

TEST(JobState, RandomSequencesKeepCountsConsistent) {
  // 6 domains of 10 GPUs, TP 4: 2 groups + 2 idle GPUs per domain; job 4 groups x PP 2.
  const auto layout = six_domain_layout();
  ASSERT_TRUE(layout.ok());
  for (int variant = 0; variant < 4; ++variant) {
    const MembershipRules rules =
        rules_for(4, variant & 1, true, variant & 2, !(variant & 1));
    JobState js(*layout);
    js.reset(rules);
    const std::vector<int32_t> healthy_hist = js.histogram();
    const uint64_t healthy_hash = js.histogram_hash();
    std::vector<int> down(static_cast<size_t>(layout->cluster_gpus), 0);
    std::vector<GpuRange> open;
    // The histogram's hash depends on the histogram alone, however the state reached it.
    std::map<std::vector<int32_t>, uint64_t> hash_of;
    // A histogram saved in compact form (counts of the empty degrees left at a sentinel, which
    // the comparison must not read) equals the live one exactly when the full copy does.
    std::vector<uint64_t> saved_mask(js.histogram_mask_words(), 0);
    std::vector<int32_t> saved_counts(healthy_hist.size(), -7);
    js.save_histogram(saved_mask.data(), saved_counts.data());
    std::vector<int32_t> saved_hist = healthy_hist;
    int equal_seen = 0, unequal_seen = 0;
    Stream rng(7, static_cast<uint64_t>(variant), "jobstate");
    for (int step = 0; step < 3000; ++step) {
      if (open.empty() || rng.uniform01() < 0.55) {
        const bool domain = rng.uniform01() < 0.1;
        const int64_t first = domain ? static_cast<int64_t>(rng.uniform_int(6)) * 10
                                     : static_cast<int64_t>(rng.uniform_int(60));
        const GpuRange r{first, domain ? 10 : 1};
        js.fail(r);
        for (int64_t g = r.first; g < r.end(); ++g) ++down[static_cast<size_t>(g)];
        open.push_back(r);
      } else {
        const size_t i = rng.uniform_int(open.size());
        js.repair(open[i]);
        for (int64_t g = open[i].first; g < open[i].end(); ++g) --down[static_cast<size_t>(g)];
        open[i] = open.back();
        open.pop_back();
      }
      if (step % 3 == 0) js.reassign();
      int64_t failed = 0;
      for (int v : down) failed += v > 0 ? 1 : 0;
      ASSERT_EQ(js.failed_gpus(), failed);
      const auto& h = js.histogram();
      ASSERT_EQ(std::accumulate(h.begin(), h.end(), int64_t{0}), js.job_members());
      ASSERT_LE(js.job_members(), layout->job_groups);
      const auto seen = hash_of.emplace(h, js.histogram_hash()).first;
      ASSERT_EQ(seen->second, js.histogram_hash());
      // Whole (every member at the full degree) exactly when the histogram is the healthy one.
      ASSERT_EQ(js.whole(), h == healthy_hist);
      const bool equal = h == saved_hist;
      ASSERT_EQ(js.histogram_equals(saved_mask.data(), saved_counts.data()), equal);
      (equal ? equal_seen : unequal_seen)++;
      if (step % 7 == 0) {
        std::fill(saved_counts.begin(), saved_counts.end(), -7);
        js.save_histogram(saved_mask.data(), saved_counts.data());
        saved_hist = h;
      }
      if (step % 3 == 0) {
        ASSERT_EQ(h[0], 0);  // reassign drops unusable members
        if (!rules.needs_full_job) {
          ASSERT_EQ(js.job_members() % layout->pp, 0);
        }
      }
      for (int d = 0; d < 6; ++d) {
        int n = 0;
        for (int i = 0; i < 10; ++i) n += down[static_cast<size_t>(d * 10 + i)] > 0 ? 1 : 0;
        ASSERT_EQ(js.domain_failed_gpus(d), n);
      }
    }
    // Distinct histograms met here all hashed apart (a 64-bit hash: a clash would be a flaw).
    std::set<uint64_t> hashes;
    for (const auto& [hist, hash] : hash_of) hashes.insert(hash);
    EXPECT_EQ(hashes.size(), hash_of.size());
    EXPECT_GT(hash_of.size(), 10u);
    EXPECT_GT(equal_seen, 100);  // both answers were exercised
    EXPECT_GT(unequal_seen, 100);
    // A reset gives back the healthy histogram and its hash.
    js.reset(rules);
    EXPECT_EQ(js.histogram(), healthy_hist);
    EXPECT_EQ(js.histogram_hash(), healthy_hash);
  }
}

// fail_and_reassign is fail, then reassign when the failure hit the job, in one step (with short
// paths for one GPU of a whole job that an idle GPU of its domain replaces, and, without swaps,
// for a group that one failed GPU makes unusable): two states fed the same random sequence, one
// each way, answer every query alike after every step. A bucket list in another order would
// show later, when a reassign picks other groups to drop or trade.
TEST(JobState, FailAndReassignIsFailThenReassign) {
  const auto layout = six_domain_layout();
  ASSERT_TRUE(layout.ok());
  for (int variant = 0; variant < 16; ++variant) {
    MembershipRules rules = rules_for(4, variant & 1, true, !(variant & 8), !(variant & 2));
    if (variant & 4) rules.degree_by_failed[1] = 4;  // one failed GPU keeps the full degree
    JobState split(*layout), fused(*layout);
    split.reset(rules);
    fused.reset(rules);
    std::vector<GpuRange> open;
    int whole_single_hits = 0, healthy_single_hits = 0;
    Stream rng(11, static_cast<uint64_t>(variant), "jobstate-fused");
    for (int step = 0; step < 4000; ++step) {
      const std::string where = "variant " + std::to_string(variant) + ", step " +
                                std::to_string(step);
      if (open.empty() || rng.uniform01() < 0.45) {
        const bool domain = rng.uniform01() < 0.05;
        const GpuRange r = domain ? GpuRange{static_cast<int64_t>(rng.uniform_int(6)) * 10, 10}
                                  : GpuRange{static_cast<int64_t>(rng.uniform_int(60)), 1};
        open.push_back(r);
        if (rng.uniform01() < 0.2) {  // a failure that interrupts nothing: no reassign
          ASSERT_EQ(split.fail(r), fused.fail(r)) << where;
        } else {
          const bool was_whole = split.whole();
          const std::vector<int32_t> before = split.histogram();
          const bool hit = split.fail(r);
          const bool from_full = r.count == 1 && hit &&
                                 split.histogram()[4] + 1 == before[4];  // a healthy group hit
          if (hit) split.reassign();
          ASSERT_EQ(fused.fail_and_reassign(r), hit) << where;
          whole_single_hits += was_whole && from_full ? 1 : 0;
          healthy_single_hits += from_full && before[0] == 0 ? 1 : 0;
        }
      } else {
        const size_t i = rng.uniform_int(open.size());
        for (JobState* js : {&split, &fused}) {
          js->repair(open[i]);
          js->reassign();
        }
        open[i] = open.back();
        open.pop_back();
      }
      ASSERT_EQ(fused.histogram(), split.histogram()) << where;
      ASSERT_EQ(fused.histogram_hash(), split.histogram_hash()) << where;
      ASSERT_EQ(fused.job_members(), split.job_members()) << where;
      ASSERT_EQ(fused.failed_gpus(), split.failed_gpus()) << where;
      ASSERT_EQ(fused.spare_replicas(), split.spare_replicas()) << where;
      ASSERT_EQ(fused.whole_after_in_domain_swaps(), split.whole_after_in_domain_swaps())
          << where;
      for (int d = 0; d < 6; ++d) {
        ASSERT_EQ(fused.domain_min_degree(d), split.domain_min_degree(d)) << where;
        ASSERT_EQ(fused.domain_failed_gpus(d), split.domain_failed_gpus(d)) << where;
      }
    }
    // The short paths' cases: a whole job, and (without swaps) no unusable member before.
    EXPECT_GT(whole_single_hits, 30) << "variant " << variant;
    EXPECT_GT(healthy_single_hits, 50) << "variant " << variant;
  }
}

// dp_drop's rules (a damaged group is unusable, the job may shrink to whole replicas): after
// every reassign the job holds as many whole replicas as the usable groups allow, and a damaged
// domain's groups are out of it (its lowest job degree is 0).
TEST(JobState, ShrinkingJobKeepsMostWholeReplicas) {
  // 4 job domains + 2 spare domains of 10 GPUs, TP 4: 12 groups; the job is 3 replicas x PP 2.
  Scenario sc = testing::small_scenario(2, 10, 4);
  sc.cluster.domains = 4;
  sc.layout.pp = 2;
  sc.layout.dp = 3;
  auto layout = JobLayout::make(sc);
  ASSERT_TRUE(layout.ok());
  ASSERT_EQ(layout->total_groups, 12);
  const MembershipRules rules = rules_for(4, false, true, false, false);
  JobState js(*layout);
  js.reset(rules);
  std::vector<int> down(static_cast<size_t>(layout->cluster_gpus), 0);
  std::vector<GpuRange> open;
  Stream rng(11, 0, "jobstate-shrink");
  for (int step = 0; step < 4000; ++step) {
    if (open.empty() || rng.uniform01() < 0.5) {
      const GpuRange r{static_cast<int64_t>(rng.uniform_int(60)), 1};
      js.fail(r);
      ++down[static_cast<size_t>(r.first)];
      open.push_back(r);
    } else {
      const size_t i = rng.uniform_int(open.size());
      js.repair(open[i]);
      --down[static_cast<size_t>(open[i].first)];
      open[i] = open.back();
      open.pop_back();
    }
    js.reassign();
    // Group q of domain d owns GPUs d*10 + q*4 .. + 4 (no in-domain swaps under these rules).
    int64_t usable = 0;
    for (int d = 0; d < 6; ++d) {
      bool any_down = false;
      for (int q = 0; q < 2; ++q) {
        bool up = true;
        for (int t = 0; t < 4; ++t) up = up && down[static_cast<size_t>(d * 10 + q * 4 + t)] == 0;
        usable += up ? 1 : 0;
        any_down = any_down || !up;
      }
      if (any_down) {
        // A domain with a damaged group: the damaged group is not in the job, so the domain's
        // lowest degree is that of its other group (4) or none (0); never a reduced degree.
        const int m = js.domain_min_degree(d);
        ASSERT_TRUE(m == 0 || m == 4) << "step " << step;
      }
    }
    const int64_t expect = std::min<int64_t>(layout->job_groups, usable) / 2 * 2;
    ASSERT_EQ(js.job_members(), expect) << "step " << step;
    ASSERT_EQ(js.histogram()[4], expect) << "step " << step;
    const std::vector<int32_t> before = js.histogram();
    js.reassign();  // nothing changed: a second pick keeps the job as it is
    ASSERT_EQ(js.histogram(), before) << "step " << step;
  }
}

TEST(JobState, InDomainSparesHealAndSpareDomainsFill) {
  Scenario sc = testing::small_scenario(1, 10, 4);  // 2 job domains + 1 spare, 2 idle per domain
  auto layout = JobLayout::make(sc);
  ASSERT_TRUE(layout.ok());
  const MembershipRules rules = rules_for(4, false, true, true, true);
  JobState js(*layout);
  js.reset(rules);
  EXPECT_EQ(js.histogram()[4], 4);
  js.fail(GpuRange{0, 2});  // two GPUs of group 0: the two idle GPUs of domain 0 replace them
  js.reassign();
  EXPECT_EQ(js.histogram()[4], 4);
  EXPECT_EQ(js.domain_min_degree(0), 4);
  js.fail(GpuRange{4, 1});  // group 1 of domain 0: no idle left; a spare-domain group joins
  js.reassign();
  EXPECT_EQ(js.histogram()[4], 4);
  EXPECT_EQ(js.domain_min_degree(0), 4);  // group 0 still in, group 1 out
  EXPECT_EQ(js.domain_min_degree(2), 4);  // the spare domain now works
  js.fail(GpuRange{10, 10});  // domain 1 entirely: 2 more groups lost, 1 spare group left
  js.reassign();
  EXPECT_EQ(js.histogram()[4], 3);
}

// clean_up (the hint after a run that lets the next reset skip copying the per-GPU array) never
// changes what a reset gives: with the exact list of GPUs left down, with an incomplete list
// (a GPU left down that the hint misses), with a list of GPUs that are up, and after in-domain
// swaps moved GPUs between groups, the state after reset behaves like a new one on the same
// failure and repair sequence.
TEST(JobState, CleanUpNeverChangesWhatResetGives) {
  const auto layout = six_domain_layout();
  ASSERT_TRUE(layout.ok());
  struct Step {
    bool fail;
    GpuRange gpus;
  };
  // A random sequence of failures (single GPUs and whole domains) and repairs, and the ranges
  // still down after it.
  auto sequence = [](uint64_t seed, std::vector<GpuRange>& left_down) {
    std::vector<Step> steps;
    std::vector<GpuRange> open;
    Stream rng(seed, 0, "jobstate-clean-up");
    for (int i = 0; i < 400; ++i) {
      if (open.empty() || rng.uniform01() < 0.55) {
        const bool domain = rng.uniform01() < 0.1;
        const GpuRange r = domain ? GpuRange{static_cast<int64_t>(rng.uniform_int(6)) * 10, 10}
                                  : GpuRange{static_cast<int64_t>(rng.uniform_int(60)), 1};
        steps.push_back({true, r});
        open.push_back(r);
      } else {
        const size_t k = rng.uniform_int(open.size());
        steps.push_back({false, open[k]});
        open[k] = open.back();
        open.pop_back();
      }
    }
    left_down = open;
    return steps;
  };
  auto apply = [](JobState& js, const std::vector<Step>& steps) {
    for (const Step& st : steps) {
      if (st.fail) js.fail(st.gpus);
      else js.repair(st.gpus);
      js.reassign();
    }
  };
  auto expect_same_as_new = [&](JobState& reused, const MembershipRules& rules,
                                const std::string& what) {
    reused.reset(rules);
    JobState fresh(*layout);
    fresh.reset(rules);
    std::vector<GpuRange> unused;
    const std::vector<Step> steps = sequence(99, unused);
    for (size_t i = 0; i < steps.size(); ++i) {
      for (JobState* js : {&reused, &fresh}) {
        if (steps[i].fail) js->fail(steps[i].gpus);
        else js->repair(steps[i].gpus);
        js->reassign();
      }
      ASSERT_EQ(reused.failed_gpus(), fresh.failed_gpus()) << what << ", step " << i;
      ASSERT_EQ(reused.histogram(), fresh.histogram()) << what << ", step " << i;
      for (int d = 0; d < 6; ++d) {
        ASSERT_EQ(reused.domain_failed_gpus(d), fresh.domain_failed_gpus(d)) << what;
        ASSERT_EQ(reused.domain_min_degree(d), fresh.domain_min_degree(d)) << what;
      }
    }
  };
  for (const bool in_domain : {false, true}) {
    const MembershipRules rules = rules_for(4, true, true, in_domain, false);
    const std::string label = in_domain ? "in-domain swaps" : "no swaps";
    std::vector<GpuRange> left_down;
    const std::vector<Step> steps = sequence(5, left_down);
    ASSERT_FALSE(left_down.empty());
    JobState js(*layout);
    js.reset(rules);
    apply(js, steps);
    js.clean_up(left_down);  // exact
    expect_same_as_new(js, rules, label + ", exact list");
    apply(js, steps);
    js.clean_up({left_down.begin() + 1, left_down.end()});  // misses a GPU left down
    expect_same_as_new(js, rules, label + ", incomplete list");
    apply(js, steps);
    js.clean_up({GpuRange{59, 1}});  // not (only) the GPUs left down
    expect_same_as_new(js, rules, label + ", wrong list");
    apply(js, steps);
    js.clean_up(left_down);
    js.clean_up(left_down);  // twice
    expect_same_as_new(js, rules, label + ", twice");
  }
}

}  // namespace
}  // namespace ntpsim::sim
