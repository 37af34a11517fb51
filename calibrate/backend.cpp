#include "calibrate/backend.h"

#include <algorithm>
#include <cmath>

#include "models/base/check.h"
#include "models/base/statistics.h"

namespace ntpsim::calibrate {

const char* to_string(GemmDType d) { return d == GemmDType::kFP8 ? "fp8" : "bf16"; }

const char* to_string(CollectiveKind k) {
  switch (k) {
    case CollectiveKind::kAllReduce: return "all_reduce";
    case CollectiveKind::kAllGather: return "all_gather";
    case CollectiveKind::kReduceScatter: return "reduce_scatter";
    case CollectiveKind::kAllToAll: return "all_to_all";
    case CollectiveKind::kSendRecv: return "send_recv";
  }
  return "?";
}

bool parse_dtype(const std::string& text, GemmDType& out) {
  if (text == "bf16") out = GemmDType::kBF16;
  else if (text == "fp8") out = GemmDType::kFP8;
  else return false;
  return true;
}

const std::vector<CollectiveKind>& all_collectives() {
  static const std::vector<CollectiveKind> kAll = {
      CollectiveKind::kAllReduce, CollectiveKind::kAllGather, CollectiveKind::kReduceScatter,
      CollectiveKind::kAllToAll, CollectiveKind::kSendRecv};
  return kAll;
}

bool parse_collective(const std::string& text, CollectiveKind& out) {
  for (const CollectiveKind k : all_collectives()) {
    if (text == to_string(k)) {
      out = k;
      return true;
    }
  }
  return false;
}

double bus_factor(CollectiveKind kind, int n) {
  NTPSIM_CHECK(n >= 1);
  const double dn = n;
  switch (kind) {
    case CollectiveKind::kAllReduce: return 2.0 * (dn - 1.0) / dn;
    case CollectiveKind::kAllGather:
    case CollectiveKind::kReduceScatter:
    case CollectiveKind::kAllToAll: return (dn - 1.0) / dn;
    case CollectiveKind::kSendRecv: return 1.0;
  }
  return 1.0;
}

int latency_steps(CollectiveKind kind, int n) {
  switch (kind) {
    case CollectiveKind::kAllReduce: return std::max(1, 2 * (n - 1));
    case CollectiveKind::kAllGather:
    case CollectiveKind::kReduceScatter:
    case CollectiveKind::kAllToAll: return std::max(1, n - 1);
    case CollectiveKind::kSendRecv: return 1;
  }
  return 1;
}

TimeStats summarize(std::vector<double> samples) {
  NTPSIM_CHECK(!samples.empty());
  std::sort(samples.begin(), samples.end());
  TimeStats s;
  s.reps = static_cast<int>(samples.size());
  s.median_s = percentile_sorted(samples, 0.5);
  s.p10_s = percentile_sorted(samples, 0.1);
  s.p90_s = percentile_sorted(samples, 0.9);
  s.min_s = samples.front();
  s.max_s = samples.back();
  double sum = 0.0;
  for (const double v : samples) sum += v;
  s.mean_s = sum / static_cast<double>(samples.size());
  return s;
}

double ReshardRequest::busiest_bytes() const {
  NTPSIM_CHECK(k >= 1 && k < tp);
  const double b = static_cast<double>(bytes_per_rank);
  return std::max(b, static_cast<double>(k) * b / static_cast<double>(tp - k));
}

}  // namespace ntpsim::calibrate
