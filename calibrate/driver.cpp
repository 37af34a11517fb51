#include "calibrate/driver.h"

#include <algorithm>
#include <cstdio>

namespace ntpsim::calibrate {
namespace {

std::string fmt_g(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

void say(const ProgressFn& progress, const std::string& line) {
  if (progress) progress(line);
}

std::string counter(size_t i, size_t n) { return std::to_string(i + 1) + "/" + std::to_string(n); }

std::string shape_text(const GemmRequest& r) {
  return std::string(to_string(r.dtype)) + " " + to_string(r.layout) + " " + std::to_string(r.m) +
         "x" + std::to_string(r.n) + "x" + std::to_string(r.k);
}

// Records a point that was not measured (a `# skipped:` line and a progress line).
Status skip(RawWriter& out, const ProgressFn& progress, const std::string& head,
            const std::string& what, const std::string& reason) {
  say(progress, head + " " + what + ": skipped (" + reason + ")");
  return out.write_skipped(what, reason);
}

Error with_context(const Error& e, const std::string& what) {
  return Error{what + ": " + e.message, e.exit_code};
}

Status gemm_loop(Backend& b, const std::vector<GemmRequest>& shapes, double limit_w,
                 RawWriter& out, const ProgressFn& progress, const char* tag) {
  for (size_t i = 0; i < shapes.size(); ++i) {
    const GemmRequest& r = shapes[i];
    const std::string head = std::string(tag) + " " + counter(i, shapes.size());
    if (const std::string why = b.gemm_unsupported(r); !why.empty()) {
      NTPSIM_RETURN_IF_ERROR(skip(out, progress, head, shape_text(r), why));
      continue;
    }
    auto m = b.gemm(r);
    if (!m.ok() && b.failure_recoverable()) {
      NTPSIM_RETURN_IF_ERROR(skip(out, progress, head, shape_text(r), m.error().message));
      continue;
    }
    if (!m.ok()) return with_context(m.error(), std::string(tag) + " " + shape_text(r));
    NTPSIM_RETURN_IF_ERROR(out.write_gemm(r, *m, limit_w));
    say(progress, head + " " + shape_text(r) + ": " + fmt_g(m->time.median_s * 1e3) + " ms, " +
                      fmt_g(r.flops() / m->time.median_s / 1e12) + " TFLOP/s" +
                      (m->power.samples > 0 ? ", " + fmt_g(m->power.mean_w) + " W, " +
                                                  fmt_g(m->power.sm_clock_mean_mhz) + " MHz"
                                            : std::string()));
  }
  return Status::Ok();
}

}  // namespace

Status run_gemms(Backend& b, const std::vector<GemmRequest>& shapes, RawWriter& out,
                 const ProgressFn& progress) {
  return gemm_loop(b, shapes, b.enforced_power_limit_w(), out, progress, "gemm");
}

Status run_power(Backend& b, const std::vector<GemmRequest>& shapes,
                 const std::vector<double>& limits_w, RawWriter& out, const ProgressFn& progress) {
  if (limits_w.empty()) {
    return gemm_loop(b, shapes, b.enforced_power_limit_w(), out, progress, "power");
  }
  const double original = b.power_limit_w();
  Status result = Status::Ok();
  for (const double limit : limits_w) {
    auto applied = b.set_power_limit_w(limit);
    if (!applied.ok()) {
      result = with_context(applied.error(), "setting power limit " + fmt_g(limit) + " W");
      break;
    }
    // The rows carry the limit in force: the one set, or a lower cap that holds.
    const double enforced = b.enforced_power_limit_w();
    const double in_force = enforced > 0 ? std::min(enforced, *applied) : *applied;
    say(progress, "power limit set to " + fmt_g(*applied) + " W" +
                      (in_force < *applied ? " (enforced: " + fmt_g(in_force) + " W)" : ""));
    result = gemm_loop(b, shapes, in_force, out, progress, "power");
    if (!result.ok()) break;
  }
  if (original > 0) {
    auto restored = b.set_power_limit_w(original);
    if (!restored.ok() && result.ok()) {
      result = with_context(restored.error(), "restoring power limit " + fmt_g(original) + " W");
    } else if (restored.ok()) {
      say(progress, "power limit restored to " + fmt_g(*restored) + " W");
    }
  }
  return result;
}

Status run_collectives(Backend& b, const CollectivePlan& plan, RawWriter& out,
                       const ProgressFn& progress) {
  for (const int g : plan.group_sizes) {
    if (g < 2 || g > b.max_group_size()) {
      return Error::bad_input("group size " + std::to_string(g) + " is outside [2, " +
                              std::to_string(b.max_group_size()) + "] (ranks available)");
    }
  }
  size_t total = 0;
  for (const int g : plan.group_sizes) {
    total += plan.kinds.size() * collective_sizes(plan.bytes, g).size();
  }
  size_t i = 0;
  // Group size outermost: a GPU backend keeps one communicator set at a time.
  for (const int g : plan.group_sizes) {
    const std::vector<int64_t> sizes = collective_sizes(plan.bytes, g);
    for (const CollectiveKind kind : plan.kinds) {
      for (const int64_t bytes : sizes) {
        CollectiveRequest r;
        r.kind = kind;
        r.group_size = g;
        r.bytes = bytes;
        r.warmup = plan.warmup;
        r.reps = plan.reps;
        r.iters = plan.iters;
        r.graph = plan.graph;
        auto m = b.collective(r);
        const std::string what = std::string(to_string(kind)) + " n=" + std::to_string(g) +
                                 " bytes=" + std::to_string(bytes);
        if (!m.ok() && b.failure_recoverable()) {
          NTPSIM_RETURN_IF_ERROR(
              skip(out, progress, "collective " + counter(i++, total), what, m.error().message));
          continue;
        }
        if (!m.ok()) return with_context(m.error(), what);
        NTPSIM_RETURN_IF_ERROR(out.write_collective(
            r, *m, plan.fabric_of_group ? plan.fabric_of_group(g) : plan.fabric));
        const double busbw = static_cast<double>(bytes) / m->time.median_s * bus_factor(kind, g);
        say(progress, "collective " + counter(i++, total) + " " + what + ": " +
                          fmt_g(m->time.median_s * 1e6) + " us, busbw " + fmt_g(busbw / 1e9) +
                          " GB/s");
      }
    }
  }
  return Status::Ok();
}

Status run_reshards(Backend& b, const ReshardPlan& plan, RawWriter& out,
                    const ProgressFn& progress) {
  if (plan.tp < 2 || plan.tp > b.max_group_size()) {
    return Error::bad_input("reshard TP degree " + std::to_string(plan.tp) + " is outside [2, " +
                            std::to_string(b.max_group_size()) + "] (ranks available)");
  }
  for (const int k : plan.ks) {
    if (k < 1 || k >= plan.tp) {
      return Error::bad_input("reshard k " + std::to_string(k) + " is outside [1, " +
                              std::to_string(plan.tp - 1) + "]");
    }
  }
  const size_t total = plan.ks.size() * plan.bytes_per_rank.size();
  size_t i = 0;
  for (const int k : plan.ks) {
    for (const int64_t bytes : plan.bytes_per_rank) {
      ReshardRequest r;
      r.tp = plan.tp;
      r.k = k;
      r.bytes_per_rank = bytes;
      r.warmup = plan.warmup;
      r.reps = plan.reps;
      r.iters = plan.iters;
      r.graph = plan.graph;
      auto m = b.reshard(r);
      const std::string what = "reshard T=" + std::to_string(plan.tp) + " k=" +
                               std::to_string(k) + " bytes=" + std::to_string(bytes);
      if (!m.ok() && b.failure_recoverable()) {
        NTPSIM_RETURN_IF_ERROR(
            skip(out, progress, "reshard " + counter(i++, total), what, m.error().message));
        continue;
      }
      if (!m.ok()) return with_context(m.error(), what);
      NTPSIM_RETURN_IF_ERROR(out.write_reshard(r, *m, plan.fabric));
      say(progress, "reshard " + counter(i++, total) + " " + what + ": " +
                        fmt_g(m->time.median_s * 1e6) + " us");
    }
  }
  return Status::Ok();
}

}  // namespace ntpsim::calibrate
