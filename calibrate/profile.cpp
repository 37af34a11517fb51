#include "calibrate/profile.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "models/base/build_info.h"

namespace ntpsim::calibrate {
namespace {

double ctx_number(const FitResult& f, const std::string& key) {
  for (const RawContext& c : f.contexts) {
    const std::string v = c.get(key);
    if (v.empty()) continue;
    char* end = nullptr;
    const double d = std::strtod(v.c_str(), &end);
    if (end != v.c_str() && d > 0) return d;
  }
  return 0.0;
}

std::string ctx_text(const FitResult& f, const std::string& key) {
  for (const RawContext& c : f.contexts) {
    if (!c.get(key).empty()) return c.get(key);
  }
  return {};
}

// One line: the context every raw file agrees on, plus the files.
std::string context_summary(const FitResult& f) {
  std::string s;
  for (const char* key : {"gpu", "gpu_count", "driver", "cuda_runtime", "cublas", "nccl",
                          "hostname", "date", "git_sha", "synthetic"}) {
    const std::string v = ctx_text(f, key);
    if (!v.empty()) s += fmt::format("{}{}={}", s.empty() ? "" : "; ", key, v);
  }
  std::string files;
  for (const auto& file : f.files) files += (files.empty() ? "" : ", ") + file;
  return s + (s.empty() ? "" : "; ") + "files=" + files;
}

models::Fabric* fabric_of(models::HardwareProfile& h, const std::string& name) {
  if (name == "scale_up") return &h.scale_up;
  if (name == "scale_out") return &h.scale_out;
  return nullptr;
}

}  // namespace

Result<models::HardwareProfile> make_profile(const FitResult& fit, const ProfileOptions& opt) {
  models::HardwareProfile h;
  const bool has_base = opt.base.has_value();
  if (has_base) {
    h = *opt.base;
    // The measured GPU's own power limits replace the datasheet's (e.g. an H200 NVL at 600 W).
    if (const double tdp = ctx_number(fit, "power_limit_default_w"); tdp > 0) {
      h.tdp_w = tdp;
      h.idle_power_w = std::min(h.idle_power_w, tdp);
    }
    const double max_limit = ctx_number(fit, "power_limit_max_w");
    h.max_power_w = std::max(h.tdp_w, max_limit > 0 ? max_limit : h.max_power_w);
  } else {
    h.gpu = ctx_text(fit, "gpu");
    h.hbm_bytes = ctx_number(fit, "gpu_memory_bytes");
    h.hbm_bw_Bps = ctx_number(fit, "memory_bw_measured_GBps") * 1e9;
    h.tdp_w = ctx_number(fit, "power_limit_default_w");
    h.max_power_w = std::max(h.tdp_w, ctx_number(fit, "power_limit_max_w"));
    h.scale_up.efficiency = 1.0;
    h.scale_out.efficiency = 1.0;
  }
  h.origin = fit.origin.empty() ? "measured" : fit.origin;
  // Per part: what the fit read; parts not fitted keep the base's (or the built-in) spec values.
  // "other" (HBM, TDP, ...) is the base's, or without a base the raw files' context.
  h.field_origins.clear();
  for (const char* part : {"gemm", "scale_up", "scale_out", "power"}) {
    const auto it = fit.part_origins.find(part);
    h.field_origins[part] = it != fit.part_origins.end() ? it->second : "spec";
  }
  h.field_origins["other"] = has_base ? "spec" : h.origin;
  h.name = !opt.name.empty() ? opt.name
           : has_base        ? h.name + "-" + h.origin
                             : h.origin + "-" + (h.gpu.empty() ? std::string("gpu") : h.gpu);
  for (char& c : h.name) {
    if (c == ' ') c = '-';
  }

  // GEMM: the tile model from the bf16 fit (else fp8, else mxfp8), the efficiency against the
  // base's peak. The profile's fp8 peak comes from per-tensor fp8 when measured, else from mxfp8
  // (Blackwell's fp8 training recipe). With layouts fitted apart, each type's TN fit is used.
  const GemmFit* bf16_fit = profile_gemm_fit(fit, GemmDType::kBF16);
  const GemmFit* fp8_fit = profile_gemm_fit(fit, GemmDType::kFP8);
  if (fp8_fit == nullptr) fp8_fit = profile_gemm_fit(fit, GemmDType::kMXFP8);
  const GemmFit* main_fit = bf16_fit != nullptr ? bf16_fit : fp8_fit;
  if (main_fit != nullptr) {
    const bool fp8 = is_fp8(main_fit->dtype);
    h.gemm.sm_count = main_fit->sm_count;
    h.gemm.tile_m = main_fit->tile_m;
    h.gemm.tile_n = main_fit->tile_n;
    h.gemm.tile_k = main_fit->tile_k;
    h.gemm.overhead_s = main_fit->overhead_s;
    double peak = h.peak_flops(fp8);
    if (peak <= 0 || main_fit->rate_flops > peak) {
      // No base peak, or the measured rate beats it: the measured rate becomes the peak.
      peak = main_fit->rate_flops;
      (fp8 ? h.peak_fp8_flops : h.peak_bf16_flops) = peak;
    }
    h.gemm_efficiency = std::clamp(main_fit->rate_flops / peak, 0.01, 1.0);
    if (fp8_fit != nullptr && fp8_fit != main_fit) {
      // One efficiency for both types: the fp8 effective peak reproduces its rate.
      h.peak_fp8_flops = fp8_fit->rate_flops / h.gemm_efficiency;
    }
    h.gemm.table.clear();
    if (opt.gemm_table) {
      for (const auto& p : main_fit->table) {
        h.gemm.table.push_back({static_cast<double>(p.m), static_cast<double>(p.n),
                                static_cast<double>(p.k), p.flops_per_s});
      }
    }
    h.measured.gemm_r2 = main_fit->quality.r2;
    h.measured.gemm_max_rel_error = main_fit->quality.max_abs_rel_error;
  }
  if (h.peak_bf16_flops <= 0) {
    return Error::bad_input("no bf16 GEMM was measured and there is no base profile: pass --base PROFILE");
  }

  // Collectives, per fabric.
  double coll_r2 = 1.0, coll_err = 0.0;
  for (const CollectiveFitResult& c : fit.collectives) {
    models::Fabric* fab = fabric_of(h, c.fabric);
    if (fab == nullptr) {
      return Error::bad_input(fmt::format("collective fabric '{}' is neither scale_up nor scale_out "
                                          "(ntpcal collectives --fabric)", c.fabric));
    }
    models::CollectiveParams p;
    p.alpha_s = c.alpha_s;
    p.bus_bw_Bps = c.bus_bw_Bps;
    for (const CollectiveGroupFit& g : c.groups) {
      p.by_group_size[g.group_size] = models::CollectiveFit{g.alpha_s, g.bus_bw_Bps};
    }
    fab->collectives[to_string(c.kind)] = p;
    if (!has_base) fab->bw_per_gpu_Bps = std::max(fab->bw_per_gpu_Bps, c.bus_bw_Bps);
    coll_r2 = std::min(coll_r2, c.quality.r2);
    coll_err = std::max(coll_err, c.quality.max_abs_rel_error);
  }
  for (const ReshardFit& r : fit.reshards) {
    models::Fabric* fab = fabric_of(h, r.fabric);
    if (fab == nullptr) {
      return Error::bad_input(fmt::format("reshard fabric '{}' is neither scale_up nor scale_out",
                                          r.fabric));
    }
    models::CollectiveParams& a2a = fab->collectives["all_to_all"];
    if (a2a.bus_bw_Bps <= 0) {  // no all_to_all fit: the reshard's values stand for all sizes
      a2a.alpha_s = r.alpha_s;
      a2a.bus_bw_Bps = r.bw_Bps;
    }
    a2a.by_group_size[r.tp] = models::CollectiveFit{r.alpha_s, r.bw_Bps};
  }
  if (!fit.collectives.empty()) {
    h.measured.collective_r2 = coll_r2;
    h.measured.collective_max_rel_error = coll_err;
  }

  // Power.
  if (fit.power) {
    const PowerFit& p = *fit.power;
    if (p.swept) h.power_elasticity = std::clamp(p.elasticity, 0.0, 1.0);
    if (p.max_clock_speedup > 0) h.max_clock_speedup = std::clamp(p.max_clock_speedup, 1.0, 4.0);
    if (!has_base && h.tdp_w <= 0) h.tdp_w = p.tdp_w;
  }

  if (!has_base) {
    const auto need = [](double v, const char* what) -> Status {
      if (v > 0) return Status::Ok();
      return Error::bad_input(fmt::format("{} is not in the raw files: pass --base PROFILE to take "
                                          "it from a spec profile", what));
    };
    NTPSIM_RETURN_IF_ERROR(need(h.hbm_bytes, "HBM capacity (context gpu_memory_bytes)"));
    NTPSIM_RETURN_IF_ERROR(need(h.hbm_bw_Bps, "HBM bandwidth (context memory_bw_measured_GBps)"));
    NTPSIM_RETURN_IF_ERROR(need(h.tdp_w, "TDP (context power_limit_default_w)"));
    NTPSIM_RETURN_IF_ERROR(need(h.scale_up.bw_per_gpu_Bps, "scale-up bandwidth (scale_up collectives)"));
    NTPSIM_RETURN_IF_ERROR(need(h.scale_out.bw_per_gpu_Bps, "scale-out bandwidth (scale_out collectives)"));
    if (h.max_power_w < h.tdp_w) h.max_power_w = h.tdp_w;
  }
  h.measured.context = context_summary(fit);
  h.measured.points = fit.points;
  h.source.clear();
  return h;
}

std::string profile_text(const models::HardwareProfile& profile, const FitResult& fit,
                         const std::vector<ModelCheck>& checks) {
  const auto& bi = build_info();
  std::string s;
  s += fmt::format("# Measured hardware profile written by `ntpsim fit` (ntpsim {}, git {}).\n",
                   bi.version, bi.git_sha);
  s += "# Raw files:\n";
  for (const auto& f : fit.files) s += "#   " + f + "\n";
  s += fmt::format("# Origin: {} (per part:", profile.origin);
  for (const auto& [part, origin] : profile.field_origins) s += fmt::format(" {} {}", part, origin);
  s += ")\n";
  if (!ctx_text(fit, "synthetic").empty()) {
    s += "# WARNING: the raw files are SYNTHETIC (generated from known parameters), not measurements.\n";
  }
  const std::string summary = describe(fit);
  size_t pos = 0;
  while (pos < summary.size()) {
    const size_t nl = std::min(summary.find('\n', pos), summary.size());
    if (nl > pos) s += "# fit: " + summary.substr(pos, nl - pos) + "\n";
    pos = nl + 1;
  }
  for (const ModelCheck& c : checks) {
    s += fmt::format("# model check: {}: {} points, max |rel err| {:.1f}%, mean {:.1f}%\n", c.name,
                     c.quality.points, 100 * c.quality.max_abs_rel_error,
                     100 * c.quality.mean_abs_rel_error);
  }
  for (const ReshardFit& r : fit.reshards) {
    s += fmt::format("# note: {}.collectives.all_to_all.group_sizes.{} holds the reshard fit (the analytic "
                     "model uses all_to_all at n = T only for the NTP reshard)\n", r.fabric, r.tp);
  }
  YAML::Emitter out;
  out << models::to_yaml(profile);
  s += out.c_str();
  s += "\n# Per-point relative errors (predicted - measured) / measured:\n";
  const auto points = [&](const std::string& fit_name, const FitQuality& q) {
    for (const PointError& p : q.per_point) {
      s += fmt::format("#   {:<22} {:+.2f}%  {}\n", fit_name, 100 * p.rel_error, p.what);
    }
  };
  for (const GemmFit& g : fit.gemm) points(fmt::format("gemm.{}", gemm_fit_name(g)), g.quality);
  for (const CollectiveFitResult& c : fit.collectives) {
    points(fmt::format("{}.{}", c.fabric, to_string(c.kind)), c.quality);
  }
  for (const ReshardFit& r : fit.reshards) points(fmt::format("{}.reshard.T{}", r.fabric, r.tp), r.quality);
  return s;
}

std::string fit_report_csv(const FitResult& fit) {
  std::string s = "fit,what,measured_s,predicted_s,rel_error\n";
  const auto rows = [&](const std::string& name, const FitQuality& q) {
    for (const PointError& p : q.per_point) {
      s += fmt::format("{},{},{:.9g},{:.9g},{:.6g}\n", name, p.what, p.measured_s, p.predicted_s,
                       p.rel_error);
    }
  };
  for (const GemmFit& g : fit.gemm) rows(fmt::format("gemm.{}", gemm_fit_name(g)), g.quality);
  for (const CollectiveFitResult& c : fit.collectives) {
    rows(fmt::format("{}.{}", c.fabric, to_string(c.kind)), c.quality);
    for (const CollectiveGroupFit& g : c.groups) {
      rows(fmt::format("{}.{}.n{}", c.fabric, to_string(c.kind), g.group_size), g.quality);
    }
  }
  for (const ReshardFit& r : fit.reshards) rows(fmt::format("{}.reshard.T{}", r.fabric, r.tp), r.quality);
  return s;
}

}  // namespace ntpsim::calibrate
