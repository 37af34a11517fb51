#include "models/hardware.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>

#include "models/base/file_memo.h"
#include "models/base/units.h"

namespace ntpsim::models {

namespace {

namespace fs = std::filesystem;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kMaxFlops = 1e17;  // 100 PFLOP/s per GPU: far above any real part
constexpr double kMaxBw = 1e15;     // 1 PB/s
constexpr double kMaxAlpha = 1.0;   // 1 s per step would be a unit mistake

Status read_collective_fit(MapReader& r, CollectiveFit& out) {
  NTPSIM_RETURN_IF_ERROR(
      r.quantity("alpha", out.alpha_s, units::parse_duration_s, false, 0, kMaxAlpha));
  NTPSIM_RETURN_IF_ERROR(
      r.quantity("bus_bw", out.bus_bw_Bps, units::parse_bandwidth_Bps, false, 0, kMaxBw));
  return Status::Ok();
}

Status read_collective(const YAML::Node& node, const std::string& path, const YamlContext& ctx,
                       const Fabric& fabric, CollectiveParams& out) {
  auto r = MapReader::make(node, path, ctx);
  if (!r.ok()) return r.error();
  out.alpha_s = fabric.alpha_s;
  CollectiveFit base{out.alpha_s, out.bus_bw_Bps};
  NTPSIM_RETURN_IF_ERROR(read_collective_fit(*r, base));
  out.alpha_s = base.alpha_s;
  out.bus_bw_Bps = base.bus_bw_Bps;
  const YAML::Node sizes = r->child("group_sizes");
  if (sizes.IsDefined() && !sizes.IsNull()) {
    const std::string spath = join_path(path, "group_sizes");
    auto sr = MapReader::make(sizes, spath, ctx);
    if (!sr.ok()) return sr.error();
    for (const auto& kv : sizes) {
      const std::string key = kv.first.Scalar();
      sr->mark_used(key);
      auto n = units::parse_count(key);
      if (!n.ok() || *n != static_cast<int>(*n) || *n < 2 || *n > (1 << 20)) {
        return sr->error(key, "a group size must be a whole number of GPUs >= 2");
      }
      auto fr = MapReader::make(kv.second, join_path(spath, key), ctx);
      if (!fr.ok()) return fr.error();
      CollectiveFit fit{out.alpha_s, out.bus_bw_Bps};
      NTPSIM_RETURN_IF_ERROR(read_collective_fit(*fr, fit));
      NTPSIM_RETURN_IF_ERROR(fr->finish());
      if (fit.bus_bw_Bps <= 0) return fr->error_here("needs bus_bw > 0");
      out.by_group_size[static_cast<int>(*n)] = fit;
    }
  }
  return r->finish();
}

Status read_fabric(MapReader& parent, std::string_view key, Fabric& out) {
  if (!parent.has(key)) return Status::Ok();
  const std::string path = join_path(parent.path(), key);
  auto r = MapReader::make(parent.child(key), path, parent.context());
  if (!r.ok()) return r.error();
  NTPSIM_RETURN_IF_ERROR(
      r->quantity("bw_per_gpu", out.bw_per_gpu_Bps, units::parse_bandwidth_Bps, false, 0, kMaxBw));
  NTPSIM_RETURN_IF_ERROR(
      r->quantity("efficiency", out.efficiency, units::parse_fraction, false, 0.01, 1.0));
  NTPSIM_RETURN_IF_ERROR(
      r->quantity("alpha", out.alpha_s, units::parse_duration_s, false, 0, kMaxAlpha));
  NTPSIM_RETURN_IF_ERROR(r->integer("comm_sms", out.comm_sms, false, 0, 100000));
  NTPSIM_RETURN_IF_ERROR(r->integer("domains_per_leaf", out.domains_per_leaf, false, 0, 1000000));
  NTPSIM_RETURN_IF_ERROR(r->number("oversubscription", out.oversubscription, false, 1.0, 1000.0));
  const YAML::Node coll = r->child("collectives");
  if (coll.IsDefined() && !coll.IsNull()) {
    const std::string cpath = join_path(path, "collectives");
    auto cr = MapReader::make(coll, cpath, parent.context());
    if (!cr.ok()) return cr.error();
    for (const auto& name : collective_names()) {
      if (!cr->has(name)) continue;
      CollectiveParams p;
      NTPSIM_RETURN_IF_ERROR(
          read_collective(cr->child(name), join_path(cpath, name), parent.context(), out, p));
      out.collectives[name] = p;
    }
    NTPSIM_RETURN_IF_ERROR(cr->finish(collective_names()));
  }
  return r->finish();
}

Status read_gemm(MapReader& parent, GemmParams& g) {
  if (!parent.has("gemm")) return Status::Ok();
  const std::string path = join_path(parent.path(), "gemm");
  auto r = MapReader::make(parent.child("gemm"), path, parent.context());
  if (!r.ok()) return r.error();
  NTPSIM_RETURN_IF_ERROR(r->integer("sm_count", g.sm_count, false, 1, 100000));
  NTPSIM_RETURN_IF_ERROR(r->integer("tile_m", g.tile_m, false, 1, 4096));
  NTPSIM_RETURN_IF_ERROR(r->integer("tile_n", g.tile_n, false, 1, 4096));
  NTPSIM_RETURN_IF_ERROR(r->integer("tile_k", g.tile_k, false, 1, 4096));
  NTPSIM_RETURN_IF_ERROR(
      r->quantity("overhead", g.overhead_s, units::parse_duration_s, false, 0, 1.0));
  NTPSIM_RETURN_IF_ERROR(r->quantity("attention_efficiency", g.attention_efficiency,
                                     units::parse_fraction, false, 0.01, 1.0));
  NTPSIM_RETURN_IF_ERROR(
      r->quantity("hbm_efficiency", g.hbm_efficiency, units::parse_fraction, false, 0.01, 1.0));
  const YAML::Node table = r->child("table");
  if (table.IsDefined() && !table.IsNull()) {
    const std::string tpath = join_path(path, "table");
    if (!table.IsSequence()) {
      return Error::at(
          parent.context().locate(table, tpath), tpath,
          fmt::format("expected a list of {{m, n, k, tflops}}, got {}", yaml_kind(table)));
    }
    for (size_t i = 0; i < table.size(); ++i) {
      const std::string ipath = fmt::format("{}[{}]", tpath, i);
      auto pr = MapReader::make(table[i], ipath, parent.context());
      if (!pr.ok()) return pr.error();
      GemmPoint p;
      double tflops = 0;
      NTPSIM_RETURN_IF_ERROR(pr->quantity("m", p.m, units::parse_count, true, 1, 1e9));
      NTPSIM_RETURN_IF_ERROR(pr->quantity("n", p.n, units::parse_count, true, 1, 1e9));
      NTPSIM_RETURN_IF_ERROR(pr->quantity("k", p.k, units::parse_count, true, 1, 1e9));
      NTPSIM_RETURN_IF_ERROR(pr->number("tflops", tflops, true, 1e-6, kMaxFlops / 1e12));
      NTPSIM_RETURN_IF_ERROR(pr->finish());
      p.flops_per_s = tflops * 1e12;
      g.table.push_back(p);
    }
  }
  return r->finish();
}

const std::vector<std::string>& origin_names() {
  static const std::vector<std::string> kNames = {"spec", "measured", "synthetic", "mixed"};
  return kNames;
}

Status read_sections(MapReader& r, HardwareProfile& h) {
  if (r.has("storage")) {
    auto s = MapReader::make(r.child("storage"), join_path(r.path(), "storage"), r.context());
    if (!s.ok()) return s.error();
    NTPSIM_RETURN_IF_ERROR(
        s->quantity("write", h.storage_write_Bps, units::parse_bandwidth_Bps, false, 0, kMaxBw));
    NTPSIM_RETURN_IF_ERROR(
        s->quantity("read", h.storage_read_Bps, units::parse_bandwidth_Bps, false, 0, kMaxBw));
    // Zero is no bandwidth, not "unlimited": an absent field is the unlimited case.
    for (const auto& [key, value] :
         {std::pair{"write", h.storage_write_Bps}, std::pair{"read", h.storage_read_Bps}}) {
      if (s->has(key) && value == 0.0) {
        return s->error(key,
                        "must be above zero (omit the field when only the network limits "
                        "checkpoint traffic)");
      }
    }
    NTPSIM_RETURN_IF_ERROR(s->finish());
  }
  NTPSIM_RETURN_IF_ERROR(read_gemm(r, h.gemm));
  if (r.has("power")) {
    auto s = MapReader::make(r.child("power"), join_path(r.path(), "power"), r.context());
    if (!s.ok()) return s.error();
    NTPSIM_RETURN_IF_ERROR(s->quantity("comm_power_fraction", h.power.comm_power_fraction,
                                       units::parse_fraction, false, 0, 2));
    NTPSIM_RETURN_IF_ERROR(s->finish());
  }
  if (r.has("memory")) {
    auto s = MapReader::make(r.child("memory"), join_path(r.path(), "memory"), r.context());
    if (!s.ok()) return s.error();
    NTPSIM_RETURN_IF_ERROR(s->quantity("usable_fraction", h.memory.usable_fraction,
                                       units::parse_fraction, false, 0.05, 1));
    NTPSIM_RETURN_IF_ERROR(
        s->quantity("reserved", h.memory.reserved_bytes, units::parse_size_bytes, false, 0, 1e13));
    NTPSIM_RETURN_IF_ERROR(s->finish());
  }
  if (r.has("field_origins")) {
    auto s = MapReader::make(r.child("field_origins"), join_path(r.path(), "field_origins"),
                             r.context());
    if (!s.ok()) return s.error();
    for (const char* part : {"gemm", "scale_up", "scale_out", "power", "other"}) {
      std::string v;
      NTPSIM_RETURN_IF_ERROR(s->choice(part, v, origin_names(), false));
      if (!v.empty()) h.field_origins[part] = v;
    }
    NTPSIM_RETURN_IF_ERROR(s->finish());
  }
  if (r.has("measured")) {
    auto s = MapReader::make(r.child("measured"), join_path(r.path(), "measured"), r.context());
    if (!s.ok()) return s.error();
    MeasuredInfo& m = h.measured;
    NTPSIM_RETURN_IF_ERROR(s->string("context", m.context, false));
    NTPSIM_RETURN_IF_ERROR(s->number("gemm_max_rel_error", m.gemm_max_rel_error, false, 0, kInf));
    NTPSIM_RETURN_IF_ERROR(s->number("gemm_r2", m.gemm_r2, false, -kInf, 1));
    NTPSIM_RETURN_IF_ERROR(
        s->number("collective_max_rel_error", m.collective_max_rel_error, false, 0, kInf));
    NTPSIM_RETURN_IF_ERROR(s->number("collective_r2", m.collective_r2, false, -kInf, 1));
    NTPSIM_RETURN_IF_ERROR(
        s->integer("points", m.points, false, 0, std::numeric_limits<int>::max()));
    NTPSIM_RETURN_IF_ERROR(s->finish());
  }
  return Status::Ok();
}

Result<HardwareProfile> read_map(const YAML::Node& node, const std::string& path,
                                 const YamlContext& ctx, const std::string& source) {
  auto rr = MapReader::make(node, path, ctx);
  if (!rr.ok()) return rr.error();
  MapReader& r = *rr;
  HardwareProfile h;
  h.source = source;
  double bf16_tflops = 0, fp8_tflops = 0;
  NTPSIM_RETURN_IF_ERROR(r.string("name", h.name, true));
  NTPSIM_RETURN_IF_ERROR(r.choice("origin", h.origin, origin_names(), false));
  NTPSIM_RETURN_IF_ERROR(r.string("gpu", h.gpu, false));
  NTPSIM_RETURN_IF_ERROR(r.number("peak_bf16_tflops", bf16_tflops, true, 1e-3, kMaxFlops / 1e12));
  NTPSIM_RETURN_IF_ERROR(r.number("peak_fp8_tflops", fp8_tflops, false, 0, kMaxFlops / 1e12));
  NTPSIM_RETURN_IF_ERROR(r.quantity("hbm", h.hbm_bytes, units::parse_size_bytes, true, 1e6, 1e15));
  NTPSIM_RETURN_IF_ERROR(
      r.quantity("hbm_bw", h.hbm_bw_Bps, units::parse_bandwidth_Bps, true, 1e6, kMaxBw));
  NTPSIM_RETURN_IF_ERROR(r.quantity("tdp", h.tdp_w, units::parse_power_w, true, 1, 1e5));
  NTPSIM_RETURN_IF_ERROR(
      r.quantity("max_power", h.max_power_w, units::parse_power_w, false, 0, 1e5));
  NTPSIM_RETURN_IF_ERROR(r.number("power_elasticity", h.power_elasticity, false, 0, 1));
  NTPSIM_RETURN_IF_ERROR(r.number("max_clock_speedup", h.max_clock_speedup, false, 1, 4));
  NTPSIM_RETURN_IF_ERROR(
      r.quantity("idle_power", h.idle_power_w, units::parse_power_w, false, 0, 1e5));
  NTPSIM_RETURN_IF_ERROR(
      r.quantity("gemm_efficiency", h.gemm_efficiency, units::parse_fraction, false, 0.01, 1));
  NTPSIM_RETURN_IF_ERROR(r.integer("gpus_per_domain", h.gpus_per_domain, false, 0, 1 << 20));
  if (r.has("gpus_per_domain") && h.gpus_per_domain == 0) {
    // Zero would switch the domain-size check off; an absent field is the "any size" case.
    return r.error("gpus_per_domain",
                   "must be at least 1 (omit the field when the profile fits any domain size)");
  }
  NTPSIM_RETURN_IF_ERROR(read_fabric(r, "scale_up", h.scale_up));
  NTPSIM_RETURN_IF_ERROR(read_fabric(r, "scale_out", h.scale_out));
  NTPSIM_RETURN_IF_ERROR(read_sections(r, h));
  NTPSIM_RETURN_IF_ERROR(
      r.finish({"storage", "gemm", "power", "memory", "measured", "field_origins"}));
  h.peak_bf16_flops = bf16_tflops * 1e12;
  h.peak_fp8_flops = fp8_tflops * 1e12;
  if (h.max_power_w == 0) h.max_power_w = h.tdp_w;
  if (h.max_power_w < h.tdp_w) {
    return r.error("max_power",
                   fmt::format("{} is below tdp {}", units::format_power(h.max_power_w),
                               units::format_power(h.tdp_w)));
  }
  if (h.idle_power_w > h.tdp_w) return r.error("idle_power", "is above tdp");
  if (h.scale_up.bw_per_gpu_Bps <= 0)
    return r.error_here("scale_up.bw_per_gpu is required and must be > 0");
  if (h.scale_out.bw_per_gpu_Bps <= 0)
    return r.error_here("scale_out.bw_per_gpu is required and must be > 0");
  return h;
}

// The file a string value names: an existing path (as given, or relative to the directory of the
// file that holds the value), else <dir>/<name>.yaml in the search dirs. Errors are located at
// `node`, whose location is asked only then (a load of a copied tree takes its outcome only when
// it asked none; yaml_reader.h, gave_unmarked_location).
Result<std::string> resolve_profile(const std::string& value, const std::string& holder_file,
                                    const std::vector<std::string>& search_dirs,
                                    const YAML::Node& node, const YamlContext& ctx,
                                    const std::string& path) {
  std::error_code ec;
  const bool looks_like_path =
      value.find('/') != std::string::npos || value.ends_with(".yaml") || value.ends_with(".yml");
  if (looks_like_path) {
    fs::path found = value;
    fs::file_status st = fs::status(found, ec);
    if (!fs::exists(st) && !holder_file.empty() && fs::path(value).is_relative()) {
      found = fs::path(holder_file).parent_path() / value;
      st = fs::status(found, ec);
    }
    if (fs::is_regular_file(st)) return found.string();
    if (!fs::exists(st)) {
      return Error::at(
          ctx.locate(node, path), path,
          fmt::format("hardware profile file \"{}\" not found", clip_for_message(value)));
    }
    return Error::at(ctx.locate(node, path), path,
                     fmt::format("hardware profile file \"{}\" is {}, not a YAML file",
                                 clip_for_message(value), file_kind(st)));
  }
  std::vector<std::string> known;
  for (const auto& dir : search_dirs) {
    const fs::path candidate = fs::path(dir) / (value + ".yaml");
    if (fs::is_regular_file(candidate, ec)) return candidate.string();
    if (!fs::is_directory(dir, ec)) continue;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      if (entry.path().extension() == ".yaml") known.push_back(entry.path().stem().string());
    }
  }
  std::sort(known.begin(), known.end());
  std::string list;
  for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
  const std::string near = nearest_key(value, known);
  return Error::at(
      ctx.locate(node, path), path,
      fmt::format("unknown hardware profile \"{}\"{}; known profiles: {}", clip_for_message(value),
                  near.empty() ? "" : fmt::format(" (did you mean \"{}\"?)", near),
                  list.empty() ? "(none found in the search directories)" : list));
}

// FLOP/s as the TFLOP/s a profile writes: the double t nearest flops / 1e12 for which the reader's
// t * 1e12 gives back `flops` exactly, when one of its neighbours does (the division and the
// multiplication each round, so flops / 1e12 alone may read back one unit in the last place off).
double tera(double flops) {
  const double t = flops / 1e12;
  if (t * 1e12 == flops) return t;
  double down = t, up = t;
  for (int i = 0; i < 4; ++i) {
    down = std::nextafter(down, 0.0);
    up = std::nextafter(up, std::numeric_limits<double>::infinity());
    if (down * 1e12 == flops) return down;
    if (up * 1e12 == flops) return up;
  }
  return t;
}

YAML::Node fabric_yaml(const Fabric& f) {
  YAML::Node n;
  n["bw_per_gpu"] = units::format_bandwidth_exact(f.bw_per_gpu_Bps);
  n["efficiency"] = f.efficiency;
  n["alpha"] = units::format_duration_exact(f.alpha_s);
  if (f.comm_sms > 0) n["comm_sms"] = f.comm_sms;
  if (f.domains_per_leaf > 0) n["domains_per_leaf"] = f.domains_per_leaf;
  if (f.oversubscription != 1.0) n["oversubscription"] = f.oversubscription;
  for (const auto& [name, c] : f.collectives) {
    YAML::Node cn;
    cn["alpha"] = units::format_duration_exact(c.alpha_s);
    if (c.bus_bw_Bps > 0) cn["bus_bw"] = units::format_bandwidth_exact(c.bus_bw_Bps);
    for (const auto& [size, fit] : c.by_group_size) {
      YAML::Node g;
      g["alpha"] = units::format_duration_exact(fit.alpha_s);
      g["bus_bw"] = units::format_bandwidth_exact(fit.bus_bw_Bps);
      cn["group_sizes"][std::to_string(size)] = g;
    }
    n["collectives"][name] = cn;
  }
  return n;
}

}  // namespace

const std::vector<std::string>& collective_names() {
  static const std::vector<std::string> kNames{"all_reduce", "all_gather", "reduce_scatter",
                                               "all_to_all", "send_recv",  "broadcast"};
  return kNames;
}

Result<HardwareProfile> read_hardware(const YAML::Node& node, const std::string& path,
                                      const YamlContext& ctx,
                                      const std::vector<std::string>& search_dirs) {
  if (!node.IsDefined() || node.IsNull()) {
    return Error::at(ctx.locate(node, path), path,
                     "missing hardware profile (a name, a file or a map)");
  }
  if (node.IsMap()) return read_map(node, path, ctx, "inline");
  if (!node.IsScalar()) {
    return Error::at(
        ctx.locate(node, path), path,
        fmt::format("expected a profile name, a file path or a map, got {}", yaml_kind(node)));
  }
  auto file = resolve_profile(node.Scalar(), ctx.file_for(path), search_dirs, node, ctx, path);
  if (!file.ok()) return file.error();
  // A profile file read before with the same bytes (a planner loads its base scenario once per
  // candidate) is not parsed again (file_memo.h); its reading depends on the file alone.
  static FileMemo<HardwareProfile> memo;
  return memo.get(*file, "", [&](const std::string& text) -> Result<HardwareProfile> {
    auto loaded = load_yaml_string(text, *file);
    if (!loaded.ok()) return loaded.error();
    const YamlContext file_ctx(*file);
    return read_map(*loaded, "", file_ctx, *file);
  });
}

std::string origin_warning(const HardwareProfile& h) {
  if (h.origin != "synthetic" && h.origin != "mixed") return {};
  std::string parts;
  for (const auto& [part, origin] : h.field_origins) {
    if (origin == "synthetic" || origin == "mixed") parts += (parts.empty() ? "" : ", ") + part;
  }
  return fmt::format(
      "hardware profile '{}' has origin {}: {} fitted from synthetic data, not "
      "measured",
      h.name, h.origin,
      parts.empty()
          ? std::string(h.origin == "synthetic" ? "its numbers were" : "some of its numbers were")
          : parts + " were");
}

YAML::Node to_yaml(const HardwareProfile& h) {
  YAML::Node n;
  n["name"] = h.name;
  n["origin"] = h.origin;
  if (!h.gpu.empty()) n["gpu"] = h.gpu;
  n["peak_bf16_tflops"] = tera(h.peak_bf16_flops);
  n["peak_fp8_tflops"] = tera(h.peak_fp8_flops);
  n["hbm"] = units::format_size_exact(h.hbm_bytes);
  n["hbm_bw"] = units::format_bandwidth_exact(h.hbm_bw_Bps);
  n["tdp"] = units::format_power_exact(h.tdp_w);
  n["max_power"] = units::format_power_exact(h.max_power_w);
  n["power_elasticity"] = h.power_elasticity;
  n["max_clock_speedup"] = h.max_clock_speedup;
  n["idle_power"] = units::format_power_exact(h.idle_power_w);
  n["gemm_efficiency"] = h.gemm_efficiency;
  if (h.gpus_per_domain > 0) n["gpus_per_domain"] = h.gpus_per_domain;  // 0: any size (absent)
  n["scale_up"] = fabric_yaml(h.scale_up);
  n["scale_out"] = fabric_yaml(h.scale_out);
  // 0: unlimited, written as an absent field (the reader refuses an explicit zero).
  if (h.storage_write_Bps > 0)
    n["storage"]["write"] = units::format_bandwidth_exact(h.storage_write_Bps);
  if (h.storage_read_Bps > 0)
    n["storage"]["read"] = units::format_bandwidth_exact(h.storage_read_Bps);
  YAML::Node g;
  g["sm_count"] = h.gemm.sm_count;
  g["tile_m"] = h.gemm.tile_m;
  g["tile_n"] = h.gemm.tile_n;
  g["tile_k"] = h.gemm.tile_k;
  g["overhead"] = units::format_duration_exact(h.gemm.overhead_s);
  g["attention_efficiency"] = h.gemm.attention_efficiency;
  g["hbm_efficiency"] = h.gemm.hbm_efficiency;
  for (const auto& p : h.gemm.table) {
    YAML::Node row;
    row["m"] = p.m;
    row["n"] = p.n;
    row["k"] = p.k;
    row["tflops"] = tera(p.flops_per_s);
    g["table"].push_back(row);
  }
  n["gemm"] = g;
  n["power"]["comm_power_fraction"] = h.power.comm_power_fraction;
  n["memory"]["usable_fraction"] = h.memory.usable_fraction;
  n["memory"]["reserved"] = units::format_size_exact(h.memory.reserved_bytes);
  for (const auto& [part, origin] : h.field_origins) n["field_origins"][part] = origin;
  if (h.origin != "spec") {
    YAML::Node m;
    if (!h.measured.context.empty()) m["context"] = h.measured.context;
    m["gemm_max_rel_error"] = h.measured.gemm_max_rel_error;
    m["gemm_r2"] = h.measured.gemm_r2;
    m["collective_max_rel_error"] = h.measured.collective_max_rel_error;
    m["collective_r2"] = h.measured.collective_r2;
    m["points"] = h.measured.points;
    n["measured"] = m;
  }
  return n;
}

}  // namespace ntpsim::models
