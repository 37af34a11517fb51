#include "sim/cluster/layout.h"

#include <fmt/format.h>

namespace ntpsim::sim {

Result<JobLayout> JobLayout::make(const Scenario& s) {
  JobLayout l;
  l.tp = s.layout.tp;
  l.pp = s.layout.pp * s.layout.cp;
  l.cp = s.layout.cp;
  l.dp = s.layout.dp;
  l.gpus_per_domain = s.cluster.gpus_per_domain;
  l.job_domains = s.cluster.domains;
  l.spare_domains = s.cluster.spare_domains;
  if (l.tp < 1 || l.pp < 1 || l.dp < 1 || l.cp < 1) {
    return Error::bad_input(
        fmt::format("layout: tp, cp, pp and dp must be >= 1 (got {}, {}, {}, {})", l.tp, l.cp,
                    s.layout.pp, l.dp));
  }
  if (l.gpus_per_domain < 1 || l.job_domains < 1 || l.spare_domains < 0) {
    return Error::bad_input("cluster: domains and gpus_per_domain must be >= 1");
  }
  if (l.tp > l.gpus_per_domain) {
    return Error::bad_input(fmt::format(
        "layout.tp: a TP group must fit in one domain: tp {} > cluster.gpus_per_domain {}", l.tp,
        l.gpus_per_domain));
  }
  l.groups_per_domain = l.gpus_per_domain / l.tp;
  l.idle_per_domain = l.gpus_per_domain % l.tp;
  l.job_groups = static_cast<int64_t>(l.dp) * l.pp;
  l.pool_groups = static_cast<int64_t>(l.job_domains) * l.groups_per_domain;
  l.total_groups = static_cast<int64_t>(l.domains()) * l.groups_per_domain;
  l.job_gpus = l.job_groups * l.tp;
  l.cluster_gpus = static_cast<int64_t>(l.domains()) * l.gpus_per_domain;
  if (l.pool_groups < l.job_groups) {
    return Error::bad_input(fmt::format(
        "cluster.domains: {} domains of {} GPUs hold {} TP groups of {}, but the job needs "
        "dp*pp = {} groups (at least {} domains)",
        l.job_domains, l.gpus_per_domain, l.pool_groups, l.tp, l.job_groups,
        (l.job_groups + l.groups_per_domain - 1) / l.groups_per_domain));
  }
  return l;
}

}  // namespace ntpsim::sim
