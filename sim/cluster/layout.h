// The job's placement on the cluster (DESIGN.md §3.1): how many TP groups fit, which are the job's.
//
// A domain of G GPUs holds floor(G/T) TP groups (GPUs [i*T, (i+1)*T) of the domain form group i)
// and G mod T idle GPUs at its end (in-domain spares). Groups are numbered domain-major, so group g
// lives in domain g / groups_per_domain; the spare domains are the last ones (topology.h). A DP
// replica is P TP groups (its pipeline stages times its context-parallel ranks: losing any of
// them stalls the replica alike); the job needs R*P groups, which must fit in the job
// (non-spare) domains.
// Thread safety: plain value.
#pragma once

#include <cstdint>

#include "models/base/status.h"
#include "sim/scenario/scenario.h"

namespace ntpsim::sim {

// a / b for 0 <= a < 2^31 and 0 < b < 2^31 (GPU and group indices and counts: a cluster has at
// most 10^7 GPUs, docs/limits.md), in 32-bit arithmetic: its division has a shorter latency than
// the 64-bit one, and the engine divides on its per-event path.
inline int64_t index_quotient(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint32_t>(a) / static_cast<uint32_t>(b));
}

struct JobLayout {
  int tp = 1;                  // T: nominal TP degree
  int pp = 1;                  // P: TP groups per replica = pipeline stages x CP
  int cp = 1;                  // C: context-parallel ranks per stage (P counts them)
  int dp = 1;                  // R: data-parallel replicas
  int gpus_per_domain = 1;     // G
  int groups_per_domain = 1;   // floor(G / T)
  int idle_per_domain = 0;     // G mod T
  int job_domains = 0;         // domains without the spare domains
  int spare_domains = 0;
  int64_t job_groups = 0;      // R * P groups the job needs
  int64_t total_groups = 0;    // groups in every domain, spare domains included
  int64_t pool_groups = 0;     // groups in the job (non-spare) domains
  int64_t job_gpus = 0;        // T * P * R
  int64_t cluster_gpus = 0;    // every GPU, spare domains and idle GPUs included

  int domains() const { return job_domains + spare_domains; }
  int domain_of_group(int64_t g) const {
    return static_cast<int>(index_quotient(g, groups_per_domain));
  }

  // Validates that T fits in a domain and that the job domains hold R*P groups (bad input).
  static Result<JobLayout> make(const Scenario& s);
};

}  // namespace ntpsim::sim
