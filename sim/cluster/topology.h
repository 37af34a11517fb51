// The physical cluster as a component graph and the blast radius of each component.
//
// Components form a tree: pods hold domains (racks), domains hold trays/nodes, nodes hold GPUs.
// A failed component makes every GPU below it unusable; that set is its blast radius. `build`
// constructs the graph with Boost.Graph (edges parent -> child), walks it once, and stores every
// unit's blast radius as a contiguous GPU range, so `blast_radius` is an O(1) table lookup.
//
// Numbering (the engine relies on it): GPUs of a domain are contiguous, gpu g is in domain
// g / gpus_per_domain; nodes are numbered the same way (node n holds GPUs [n*gpn, (n+1)*gpn));
// pods hold consecutive domains (the last pod may be partial); the spare domains are the last
// `spare_domains` domains. With gpus_per_node = 0 there is no node level and each GPU is its own
// node (units(kNode) == gpus()); with domains_per_pod = 0 there is no pod level and the whole
// cluster is one pod (units(kPod) == 1).
//
// Ownership: a Topology is an immutable value (a few tables); build it once per run and share it
// read-only. Thread safety: all const methods are safe from many threads.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "models/base/status.h"
#include "sim/scenario/scenario.h"

namespace ntpsim::sim {

// A contiguous run of GPU indices [first, first + count).
struct GpuRange {
  int64_t first = 0;
  int32_t count = 0;

  int64_t end() const { return first + count; }
  bool contains(int64_t gpu) const { return gpu >= first && gpu < end(); }
  bool operator==(const GpuRange&) const = default;
};

inline constexpr int kComponentClasses = 4;  // kGpu, kNode, kDomain, kPod

class Topology {
 public:
  // Validates the configuration (positive domains and GPUs per domain, nodes that divide a domain,
  // sizes that fit the numbering) and builds the tables. Errors are bad input naming the field.
  static Result<Topology> build(const ClusterConfig& c);

  int64_t gpus() const { return gpus_; }
  int domains() const { return domains_; }  // all domains, spare domains included (the last ones)
  int job_domains() const { return job_domains_; }
  int spare_domains() const { return domains_ - job_domains_; }
  int gpus_per_domain() const { return gpus_per_domain_; }
  int gpus_per_node() const { return gpus_per_node_; }  // 1 when the config has no node level
  int domains_per_pod() const { return domains_per_pod_; }

  // How many units of that class exist (GPUs, nodes, domains, pods).
  int64_t units(Component c) const { return units_[static_cast<int>(c)]; }
  // GPUs taken when that unit fails. REQUIRES: 0 <= unit < units(c).
  GpuRange blast_radius(Component c, int64_t unit) const;
  // REQUIRES: 0 <= gpu < gpus().
  int domain_of(int64_t gpu) const;
  int64_t node_of(int64_t gpu) const;
  int pod_of_domain(int domain) const;

 private:
  Topology() = default;

  int64_t gpus_ = 0;
  int domains_ = 0;
  int job_domains_ = 0;
  int gpus_per_domain_ = 0;
  int gpus_per_node_ = 1;
  int domains_per_pod_ = 0;
  std::array<int64_t, kComponentClasses> units_{};
  // Blast radius per class and unit, filled by walking the Boost graph once (the graph itself is
  // not kept). The GPU class is the identity (gpu g -> [g, g+1)) and is not stored.
  std::vector<GpuRange> node_radius_;
  std::vector<GpuRange> domain_radius_;
  std::vector<GpuRange> pod_radius_;
};

}  // namespace ntpsim::sim
