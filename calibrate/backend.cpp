#include "calibrate/backend.h"

#include <algorithm>
#include <cmath>

#include "models/base/check.h"
#include "models/base/statistics.h"

namespace ntpsim::calibrate {

const char* to_string(GemmDType d) {
  switch (d) {
    case GemmDType::kBF16:
      return "bf16";
    case GemmDType::kFP8:
      return "fp8";
    case GemmDType::kMXFP8:
      return "mxfp8";
  }
  return "?";
}

const char* to_string(GemmLayout l) {
  switch (l) {
    case GemmLayout::kTN:
      return "TN";
    case GemmLayout::kNN:
      return "NN";
    case GemmLayout::kNT:
      return "NT";
  }
  return "?";
}

bool parse_layout(const std::string& text, GemmLayout& out) {
  for (const GemmLayout l : {GemmLayout::kTN, GemmLayout::kNN, GemmLayout::kNT}) {
    if (text == to_string(l)) {
      out = l;
      return true;
    }
  }
  return false;
}

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
  else if (text == "mxfp8")
    out = GemmDType::kMXFP8;
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

std::vector<int64_t> collective_sizes(const std::vector<int64_t>& requested, int group_size) {
  NTPSIM_CHECK(group_size >= 1);
  const int64_t unit = 16 * static_cast<int64_t>(group_size);
  std::vector<int64_t> out;
  for (const int64_t want : requested) {
    const int64_t bytes = want / unit * unit;
    if (bytes <= 0 || (!out.empty() && out.back() == bytes)) continue;
    out.push_back(bytes);
  }
  return out;
}

std::string gemm_support(const GemmRequest& r, int cc, int cublaslt_version,
                         bool built_with_block_scaling) {
  const std::string has =
      ", this GPU has " + std::to_string(cc / 10) + "." + std::to_string(cc % 10);
  switch (r.dtype) {
    case GemmDType::kBF16:
      return {};
    case GemmDType::kFP8:
      if (cc < 89) return "fp8 needs compute capability 8.9 or newer" + has;
      if (r.m % 16 != 0 || r.n % 16 != 0 || r.k % 16 != 0) {
        return "fp8 needs m, n, k multiples of 16";
      }
      if (cc < 100 && r.layout != GemmLayout::kTN) {
        return std::string("fp8 before compute capability 10.0 runs only the TN layout, not ") +
               to_string(r.layout);
      }
      return {};
    case GemmDType::kMXFP8:
      if (!built_with_block_scaling) {
        return "mxfp8 needs block-scaled cuBLASLt (CUDA 12.8 or newer); this ntpcal was built "
               "with an older toolkit";
      }
      if (cc < 100) {
        return "mxfp8 (block-scaled fp8, one UE8M0 scale per 32 elements) needs compute "
               "capability 10.0 or newer (Blackwell)" +
               has;
      }
      if (cublaslt_version < 120800) {
        return "mxfp8 needs cuBLASLt 12.8 or newer, the loaded library is version " +
               std::to_string(cublaslt_version);
      }
      if (r.m % 16 != 0 || r.n % 16 != 0 || r.k % 32 != 0) {
        return "mxfp8 needs m and n multiples of 16 and k a multiple of 32 (the scale block)";
      }
      return {};
  }
  return {};
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
