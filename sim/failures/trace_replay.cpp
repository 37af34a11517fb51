// TraceGenerator: replays a parsed trace onto the simulated cluster (docs/trace-format.md).
#include <numeric>

#include "models/base/check.h"
#include "sim/failures/process.h"

namespace ntpsim::sim {
namespace {

constexpr double kHorizonS = 9.0e12;  // as in process.cpp: times past this are "never"

}  // namespace

TraceGenerator::TraceGenerator(const TraceConfig& cfg, const Topology& t,
                               std::shared_ptr<const TraceData> trace, uint16_t kind_base,
                               uint64_t seed, uint64_t replication)
    : topology_(&t), cfg_(cfg), trace_(std::move(trace)), kind_base_(kind_base) {
  NTPSIM_CHECK(trace_ != nullptr && !trace_->faults.empty());
  buffer_.reserve(1);
  if (cfg_.mapping == "random") {
    // A random injective placement of trace nodes onto units (partial Fisher-Yates); with more
    // trace nodes than units, node i takes the (i mod units)-th unit of one random permutation.
    Stream s(seed, replication, "trace.placement");
    const int64_t units = t.units(cfg_.component);
    const auto nodes = static_cast<int64_t>(trace_->node_names.size());
    std::vector<int64_t> perm(static_cast<size_t>(units));
    std::iota(perm.begin(), perm.end(), int64_t{0});
    const int64_t shuffled = std::min(nodes, units);
    for (int64_t i = 0; i < shuffled; ++i) {
      const auto j = i + static_cast<int64_t>(s.uniform_int(static_cast<uint64_t>(units - i)));
      std::swap(perm[static_cast<size_t>(i)], perm[static_cast<size_t>(j)]);
    }
    placement_.resize(static_cast<size_t>(nodes));
    for (int64_t i = 0; i < nodes; ++i) placement_[static_cast<size_t>(i)] = perm[static_cast<size_t>(i % units)];
  }
}

int64_t TraceGenerator::map_unit(const TraceFault& f, Component c) const {
  const int64_t units = topology_->units(c);
  const int64_t base = placement_.empty() ? f.node : placement_[static_cast<size_t>(f.node)];
  return base % units;
}

void TraceGenerator::refill() {
  const std::vector<TraceFault>& faults = trace_->faults;
  if (index_ >= faults.size()) {
    if (!cfg_.loop) return;
    index_ = 0;
    ++loop_;
  }
  const TraceFault& f = faults[index_++];
  const double t_s = (static_cast<double>(loop_) * trace_->span_s + f.start_s) * cfg_.time_scale;
  if (!(t_s < kHorizonS)) {
    index_ = faults.size();
    loop_ = 0;
    cfg_.loop = false;  // exhausted for good
    return;
  }
  const Component c = f.has_component ? f.component : cfg_.component;
  const int64_t unit = map_unit(f, c);
  FailureEvent e;
  e.time = Time::at(Duration::from_seconds(t_s));
  e.component = c;
  e.unit = unit;
  e.gpus = topology_->blast_radius(c, unit);
  e.kind = static_cast<uint16_t>(kind_base_ + f.kind);
  e.repair = Duration::from_seconds(f.repair_s * cfg_.time_scale);
  e.interrupts = cfg_.interrupts;
  buffer_.push_back(e);
}

}  // namespace ntpsim::sim
