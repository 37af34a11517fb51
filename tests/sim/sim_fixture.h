// Small hand-built scenarios and a transparent step model for the engine and strategy tests.
//
// FakeModel: iteration time = base_s x share x (T / tp) / power_ratio (power elasticity 1, no
// clock cap), reshard overhead = 1% of base_s when tp < T, power = tdp x ratio. Every expected
// value in the tests can be computed by hand from these formulas.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "models/step_model.h"
#include "sim/cluster/layout.h"
#include "sim/engine/engine.h"
#include "sim/scenario/scenario.h"
#include "sim/strategies/strategy.h"

namespace ntpsim::sim::testing {

// Absolute tolerance of hand-computed metrics (shares of the run): rounding only.
inline constexpr double kTol = 1e-9;

// A job of `domains` domains of `gpus_per_domain` GPUs at TP `tp`, PP 1, DP = every group of the
// job domains; a proportional step model of a tiny 2-layer workload (about 1 ms per iteration);
// GPU failures at `rate_per_h` per GPU, each repaired after a fixed `repair_s`; a 30-day horizon.
// No strategies: the caller adds them, with its name, replications and seed.
inline Scenario tiny_job(int domains, int gpus_per_domain, int tp, int spare_domains,
                         double rate_per_h, double repair_s) {
  Scenario s;
  s.step_model = "proportional";
  s.cluster.domains = domains;
  s.cluster.gpus_per_domain = gpus_per_domain;
  s.cluster.spare_domains = spare_domains;
  s.layout.tp = tp;
  s.layout.pp = 1;
  s.layout.dp = domains * (gpus_per_domain / tp);
  s.workload.name = "tiny";
  s.workload.layers = 2;
  s.workload.hidden = 256;
  s.workload.heads = 8;
  s.workload.kv_heads = 8;
  s.workload.ffn = 1024;
  s.workload.vocab = 1000;
  s.workload.seq_len = 128;
  s.workload.global_batch = s.layout.dp;
  s.hardware.name = "test";
  s.hardware.peak_bf16_flops = 1e14;
  s.hardware.gemm_efficiency = 0.5;
  s.hardware.tdp_w = 700;
  s.hardware.idle_power_w = 100;
  // No scale-out fabric: the in-place state transfer and the in-memory restore are given (0 s:
  // an in-place recovery is its reconfiguration pause alone, as the closed forms assume).
  s.recovery.state_transfer_s = 0.0;
  s.checkpoint.memory.restore_s = 0.0;
  FailureProcess p;
  p.component = Component::kGpu;
  p.rate_per_unit_s = rate_per_h / 3600.0;
  FailureKind k;
  k.name = "hardware";
  k.repair.distribution = "fixed";
  k.repair.mean_s = repair_s;
  p.kinds.push_back(k);
  s.failures.processes.push_back(p);
  s.horizon_s = 30 * 86400.0;
  return s;
}

class FakeModel final : public models::StepModel {
 public:
  FakeModel(int tp, double base_s, double tdp_w) : tp_(tp), base_s_(base_s), tdp_w_(tdp_w) {}
  std::string name() const override { return "fake"; }
  int nominal_tp() const override { return tp_; }
  int min_tp() const override { return 1; }
  double replica_iteration_s(int tp, double share, double power) const override {
    return base_s_ * share * tp_ / tp / power;
  }
  double reshard_overhead_s(int tp) const override { return tp < tp_ ? 0.01 * base_s_ : 0.0; }
  double gpu_power_w(double ratio) const override { return tdp_w_ * ratio; }
  double max_power_ratio() const override { return 2.0; }

 private:
  int tp_;
  double base_s_;
  double tdp_w_;
};

// Two job domains of 8 GPUs, TP 4 (2 groups per domain), PP 1, DP 4: the job fills both
// domains. 10,000 s horizon; blocking checkpoints of 10 s every 1000 s; detection 100 s,
// restart 200 s, restore 50 s, reconfigure 60 s, spare swap 300 s, no state transfer; in-memory
// snapshots restore in 20 s.
inline Scenario small_scenario(int spare_domains = 0, int gpus_per_domain = 8, int tp = 4) {
  Scenario s;
  s.name = "small";
  s.cluster.domains = 2;
  s.cluster.gpus_per_domain = gpus_per_domain;
  s.cluster.spare_domains = spare_domains;
  s.layout.tp = tp;
  s.layout.pp = 1;
  s.layout.dp = 4;
  s.workload.global_batch = 4;
  s.workload.seq_len = 1000;
  s.hardware.tdp_w = 1000;
  s.hardware.idle_power_w = 100;
  s.checkpoint.auto_interval = false;
  s.checkpoint.interval_s = 1000;
  s.checkpoint.write_s = 10;
  s.checkpoint.async_exposed_fraction = 1.0;
  s.checkpoint.restore_s = 50;
  s.recovery.detection_s = 100;
  s.recovery.restart_s = 200;
  s.recovery.reconfigure_s = 60;
  s.recovery.spare_swap_s = 300;
  s.recovery.state_transfer_s = 0.0;  // in place: the reconfiguration pause alone
  s.checkpoint.memory.restore_s = 20;
  s.horizon_s = 10000;
  return s;
}

inline FailureEvent gpu_failure(double t_s, int64_t first, int32_t count, double repair_s,
                                bool interrupts = true) {
  FailureEvent e;
  e.time = Time::at(Duration::from_seconds(t_s));
  e.component = count == 1 ? Component::kGpu : Component::kDomain;
  e.unit = first;
  e.gpus = GpuRange{first, count};
  e.repair = Duration::from_seconds(repair_s);
  e.interrupts = interrupts;
  return e;
}

// Parameters with `resume: in_place` added: ntp and ntp_power_boost restart from the checkpoint
// by default, and the tests of their reconfiguration semantics ask for in-place recovery.
inline std::map<std::string, ParamValue> in_place(std::map<std::string, ParamValue> params = {}) {
  params.emplace("resume", std::string("in_place"));
  return params;
}

// Goodput and the six badput parts of one run sum to 1 (to 1e-12).
inline void expect_sums_to_one(const ReplicationMetrics& m) {
  double sum = 0;
  for (Metric k : {Metric::kGoodput, Metric::kBadputCheckpoint, Metric::kBadputRollback,
                   Metric::kBadputRecovery, Metric::kBadputStall, Metric::kBadputDegraded,
                   Metric::kBadputReshard}) {
    sum += at(m, k);
  }
  EXPECT_NEAR(sum, 1.0, 1e-12);
}

// Everything one engine test needs, built from a scenario.
struct Bench {
  Scenario scenario;
  JobLayout layout;
  FakeModel model;
  EngineConfig config;

  explicit Bench(Scenario s, double base_s = 10.0)
      : scenario(std::move(s)),
        layout(*JobLayout::make(scenario)),
        model(scenario.layout.tp, base_s, scenario.hardware.tdp_w),
        config(*EngineConfig::make(scenario, layout, 0.0, 1.0)) {}

  std::unique_ptr<Strategy> strategy(const std::string& name,
                                     std::map<std::string, ParamValue> params = {}) const {
    auto r = make_strategy(StrategyConfig{name, name, std::move(params), {}}, model, layout,
                           scenario.hardware);
    if (!r.ok()) return nullptr;
    return std::move(r.value());
  }
};

}  // namespace ntpsim::sim::testing
