// The `uncertain:` reader and the default inputs of the sensitivity analysis: see sensitivity.h.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "models/base/units.h"
#include "models/hardware.h"
#include "sim/scenario/loader.h"
#include "sim/scenario/printer.h"
#include "sim/scenario/recovery_costs.h"
#include "sim/scenario/tree.h"
#include "sim/sensitivity/number_text.h"
#include "sim/sensitivity/sensitivity.h"

namespace ntpsim::sim {
namespace {

using sensitivity_internal::round_trip_text;

// The node at a dot/bracket field path of `root`; undefined when absent.
YAML::Node find_path(const YAML::Node& root, const std::string& path) {
  YAML::Node cur;
  cur.reset(root);
  size_t i = 0;
  while (i < path.size()) {
    size_t j = path.find_first_of(".[", i);
    if (j == std::string::npos) j = path.size();
    if (j > i) {
      const YAML::Node& c = cur;
      if (!c.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
      const YAML::Node next = c[path.substr(i, j - i)];
      if (!next.IsDefined()) return YAML::Node(YAML::NodeType::Undefined);
      cur.reset(next);
    }
    if (j < path.size() && path[j] == '[') {
      const size_t close = path.find(']', j);
      if (close == std::string::npos) return YAML::Node(YAML::NodeType::Undefined);
      size_t index = 0;
      for (size_t k = j + 1; k < close; ++k) {
        if (path[k] < '0' || path[k] > '9') return YAML::Node(YAML::NodeType::Undefined);
        index = index * 10 + static_cast<size_t>(path[k] - '0');
      }
      const YAML::Node& c = cur;
      if (!c.IsSequence() || index >= c.size()) return YAML::Node(YAML::NodeType::Undefined);
      const YAML::Node next = c[index];
      cur.reset(next);
      j = close + 1;
    }
    i = (j < path.size() && path[j] == '.') ? j + 1 : j;
  }
  return cur;
}

Result<double> parse_kind(QuantityKind kind, const std::string& text) {
  switch (kind) {
    case QuantityKind::kDuration:
      return units::parse_duration_s(text);
    case QuantityKind::kRate: {
      auto r = units::parse_rate(text);
      if (!r.ok()) return r.error();
      return r->per_second;
    }
    case QuantityKind::kPower:
      return units::parse_power_w(text);
    case QuantityKind::kBandwidth:
      return units::parse_bandwidth_Bps(text);
    case QuantityKind::kSize:
      return units::parse_size_bytes(text);
    case QuantityKind::kFraction:
      return units::parse_fraction(text);
    case QuantityKind::kNumber:
      return units::parse_number(text);
  }
  return Error::bad_input("unknown quantity");
}

// The field's quantity kind, from its resolved text (which the printer writes with the field's
// own units): the first parser that reads it, most specific first.
std::optional<QuantityKind> kind_of(const std::string& text) {
  if (units::parse_number(text).ok()) return QuantityKind::kNumber;
  if (text.ends_with('%') && units::parse_fraction(text).ok()) return QuantityKind::kFraction;
  for (QuantityKind k : {QuantityKind::kDuration, QuantityKind::kPower, QuantityKind::kBandwidth,
                         QuantityKind::kSize, QuantityKind::kRate}) {
    if (parse_kind(k, text).ok()) return k;
  }
  return std::nullopt;
}

// A plain whole number as written: optional sign, then digits only.
bool is_integer_text(const std::string& t) {
  size_t i = (!t.empty() && (t[0] == '-' || t[0] == '+')) ? 1 : 0;
  if (i >= t.size()) return false;
  for (; i < t.size(); ++i) {
    if (t[i] < '0' || t[i] > '9') return false;
  }
  return true;
}

// Emits `n` as one-line flow YAML (for an override value).
std::string flow_yaml(const YAML::Node& n) {
  YAML::Emitter e;
  e.SetMapFormat(YAML::Flow);
  e.SetSeqFormat(YAML::Flow);
  e << n;
  return e.c_str();
}

// Loads the scenario with `overrides`; the error of a bound is rewritten to point at the
// `uncertain:` entry that supplied it.
Status check_bound(const std::string& file, std::vector<std::string> overrides,
                   const UncertainInput& in, double value) {
  overrides.push_back(uncertain_override(in, value));
  auto s = load_scenario(file, overrides);
  if (!s.ok()) return s.error();
  return Status::Ok();
}

// Default inputs besides the recovery-cost table's: failure rates and repair means, the power cap
// and (analytic step model) the efficiencies, in this order.
std::vector<std::string> default_paths(const YAML::Node& resolved, const Scenario& s) {
  std::vector<std::string> paths;
  for (size_t p = 0; p < s.failures.processes.size(); ++p) {
    paths.push_back(fmt::format("failures.processes[{}].rate", p));
    const YAML::Node kinds = find_path(resolved, fmt::format("failures.processes[{}].kinds", p));
    if (kinds.IsDefined() && kinds.IsSequence()) {
      for (size_t k = 0; k < kinds.size(); ++k) {
        paths.push_back(fmt::format("failures.processes[{}].kinds[{}].repair.mean", p, k));
      }
    }
  }
  paths.push_back("hardware.max_power");
  if (s.step_model == "analytic") {
    paths.push_back("hardware.gemm_efficiency");
    paths.push_back("hardware.scale_up.efficiency");
    paths.push_back("hardware.scale_out.efficiency");
  }
  return paths;
}

constexpr const char* kEntryForms =
    "expected a range [low, high] or one distribution: {uniform: [low, high]}, {triangular: "
    "[low, mode, high]}, {normal: {mean, sd, low, high}} or {lognormal: {median, sigma, low, "
    "high}} (low and high optional)";

// Reads one `uncertain:` entry's value node into `d` (SI values, in the field's units `kind`;
// whole numbers for the points of a range, uniform or triangular of a whole-number field).
Status parse_entry(const YAML::Node& v, QuantityKind kind, bool integer, const YamlContext& ctx,
                   const std::string& field, InputDistribution& d) {
  auto value = [&](const YAML::Node& n, bool whole) -> Result<double> {
    if (!n.IsScalar()) return Error::at(ctx.locate(n, field), field, "expected a value");
    auto r = parse_kind(kind, n.Scalar());
    if (!r.ok()) {
      return Error::at(
          ctx.locate(n, field), field,
          fmt::format("{} (a {} like the field)", r.error().message, quantity_kind_name(kind)));
    }
    if (whole && integer && !is_integer_text(n.Scalar())) {
      return Error::at(ctx.locate(n, field), field,
                       fmt::format("\"{}\" is not a whole number like the field", n.Scalar()));
    }
    return *r;
  };
  auto points = [&](const YAML::Node& n, size_t count, double* out) -> Status {
    if (!n.IsSequence() || n.size() != count) {
      return Error::at(ctx.locate(n, field), field,
                       count == 2 ? "expected [low, high]" : "expected [low, mode, high]");
    }
    for (size_t i = 0; i < count; ++i) {
      auto x = value(n[i], true);
      if (!x.ok()) return x.error();
      out[i] = *x;
    }
    return Status::Ok();
  };
  if (v.IsSequence()) {
    if (v.size() != 2) return Error::at(ctx.locate(v, field), field, kEntryForms);
    double p[2];
    NTPSIM_RETURN_IF_ERROR(points(v, 2, p));
    d.kind = DistributionKind::kUniform;
    d.range = true;
    d.p0 = p[0];
    d.p1 = p[1];
    return Status::Ok();
  }
  if (!v.IsMap() || v.size() != 1 || !v.begin()->first.IsScalar()) {
    return Error::at(ctx.locate(v, field), field, kEntryForms);
  }
  const std::string name = v.begin()->first.Scalar();
  const YAML::Node body = v.begin()->second;
  const std::string sub = field + "." + name;
  if (name == "uniform" || name == "triangular") {
    double p[3];
    const bool tri = name == "triangular";
    NTPSIM_RETURN_IF_ERROR(points(body, tri ? 3 : 2, p));
    d.kind = tri ? DistributionKind::kTriangular : DistributionKind::kUniform;
    d.p0 = p[0];
    d.p1 = p[1];
    d.p2 = tri ? p[2] : 0.0;
    return Status::Ok();
  }
  if (name != "normal" && name != "lognormal") {
    return Error::at(ctx.locate(v.begin()->first, field), field,
                     fmt::format("unknown distribution \"{}\"; {}", name, kEntryForms));
  }
  const bool logn = name == "lognormal";
  d.kind = logn ? DistributionKind::kLognormal : DistributionKind::kNormal;
  if (!body.IsMap()) {
    return Error::at(ctx.locate(body, sub), sub,
                     logn ? "expected {median, sigma} (low, high optional)"
                          : "expected {mean, sd} (low, high optional)");
  }
  const char* centre = logn ? "median" : "mean";
  const char* spread = logn ? "sigma" : "sd";
  bool has_centre = false, has_spread = false;
  for (const auto& kv : body) {
    const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "";
    const std::string key_field = sub + "." + key;
    if (key == spread && logn) {
      // sigma: the standard deviation of ln x, a plain number.
      auto x = kv.second.IsScalar() ? units::parse_number(kv.second.Scalar())
                                    : Result<double>(Error::bad_input("expected a number"));
      if (!x.ok()) {
        return Error::at(ctx.locate(kv.second, key_field), key_field,
                         "expected a plain number (the standard deviation of ln x)");
      }
      d.p1 = *x;
      has_spread = true;
      continue;
    }
    if (key != centre && key != spread && key != "low" && key != "high") {
      return Error::at(
          ctx.locate(kv.first, sub), sub,
          fmt::format("unknown key \"{}\" (expected {}, {}, low, high)", key, centre, spread));
    }
    auto x = value(kv.second, false);
    if (!x.ok()) return x.error();
    if (key == centre) {
      d.p0 = *x;
      has_centre = true;
    } else if (key == spread) {
      d.p1 = *x;
      has_spread = true;
    } else if (key == "low") {
      d.low = *x;
    } else {
      d.high = *x;
    }
  }
  if (!has_centre || !has_spread) {
    return Error::at(ctx.locate(body, sub), sub, fmt::format("needs {} and {}", centre, spread));
  }
  return Status::Ok();
}

// The values an input can take that are checked against the field: its one-at-a-time values
// and the ends of what its distribution can sample, each once.
std::vector<double> values_to_check(const UncertainInput& in) {
  std::vector<double> v = {in.lo, in.hi, in.distribution.support_low(),
                           in.distribution.support_high()};
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

}  // namespace

const char* quantity_kind_name(QuantityKind kind) {
  switch (kind) {
    case QuantityKind::kDuration:
      return "duration";
    case QuantityKind::kRate:
      return "rate";
    case QuantityKind::kPower:
      return "power";
    case QuantityKind::kBandwidth:
      return "bandwidth";
    case QuantityKind::kSize:
      return "size";
    case QuantityKind::kFraction:
      return "fraction";
    case QuantityKind::kNumber:
      return "number";
  }
  return "number";
}

std::string format_quantity(QuantityKind kind, double value) {
  switch (kind) {
    case QuantityKind::kDuration:
      return units::format_duration(value);
    case QuantityKind::kRate:
      return units::format_rate(value);
    case QuantityKind::kPower:
      return units::format_power(value);
    case QuantityKind::kBandwidth:
      return units::format_bandwidth(value);
    case QuantityKind::kSize:
      return units::format_size(value);
    case QuantityKind::kFraction:
      return units::format_fraction(value);
    case QuantityKind::kNumber:
      return fmt::format("{:.6g}", value);
  }
  return round_trip_text(value);
}

std::string oat_rule(const UncertainInput& in) {
  return oat_uses_ends(in.distribution)
             ? "range ends"
             : fmt::format("{:g}%/{:g}% quantiles", 100 * kOatLowQuantile, 100 * kOatHighQuantile);
}

std::string describe_distribution(const UncertainInput& in) {
  const InputDistribution& d = in.distribution;
  auto q = [&](double v) { return format_quantity(in.kind, v); };
  switch (d.kind) {
    case DistributionKind::kUniform:
      return fmt::format("{}[{}, {}]", d.range ? "" : "uniform", q(d.p0), q(d.p1));
    case DistributionKind::kTriangular:
      return fmt::format("triangular[{}, {}, {}]", q(d.p0), q(d.p1), q(d.p2));
    case DistributionKind::kNormal:
    case DistributionKind::kLognormal: {
      std::string text = d.kind == DistributionKind::kNormal
                             ? fmt::format("normal(mean {}, sd {})", q(d.p0), q(d.p1))
                             : fmt::format("lognormal(median {}, sigma {:g})", q(d.p0), d.p1);
      return text + fmt::format(" in [{}, {}]", q(d.low),
                                std::isfinite(d.high) ? q(d.high) : std::string("inf"));
    }
  }
  return "";
}

std::string uncertain_override(const UncertainInput& in, double value) {
  std::string text = in.integer ? fmt::format("{}", std::llround(value)) : round_trip_text(value);
  switch (in.kind) {
    case QuantityKind::kDuration:
      text += "s";
      break;
    case QuantityKind::kRate:
      text += "/s";
      break;
    case QuantityKind::kPower:
      text += "W";
      break;
    case QuantityKind::kBandwidth:
      text += "B/s";
      break;
    case QuantityKind::kSize:
      text += "B";
      break;
    case QuantityKind::kFraction:
    case QuantityKind::kNumber:
      break;
  }
  return in.path + "=" + text;
}

Result<UncertainInputs> read_uncertain_inputs(const std::string& file,
                                              const std::vector<std::string>& overrides) {
  auto base = load_scenario(file, overrides);
  if (!base.ok()) return base.error();
  const YAML::Node resolved = to_yaml(*base);
  // The raw tree (includes merged, overrides applied) holds the `uncertain:` section with its
  // line marks.
  auto tree = scenario_internal::load_tree(file);
  if (!tree.ok()) return tree.error();
  for (const auto& o : overrides) {
    NTPSIM_RETURN_IF_ERROR(scenario_internal::apply_override(*tree, o));
  }
  const YamlContext ctx = tree->context();

  UncertainInputs out;
  out.base_overrides = overrides;
  // A profile named by a string cannot take field overrides: inline its resolved form first.
  auto uses_hardware = [](const std::string& p) { return p.starts_with("hardware."); };
  const YAML::Node& root = tree->root;
  const YAML::Node section = root["uncertain"];
  std::vector<std::string> paths;
  if (section.IsDefined() && !section.IsNull()) {
    if (!section.IsMap() || section.size() == 0) {
      return Error::at(ctx.locate(section, "uncertain"), "uncertain",
                       "expected a map of field paths to ranges [low, high] or distributions");
    }
    for (const auto& kv : section) {
      if (!kv.first.IsScalar()) {
        return Error::at(ctx.locate(kv.first, "uncertain"), "uncertain",
                         "expected a field path as the key");
      }
      paths.push_back(kv.first.Scalar());
    }
  } else {
    paths = default_paths(resolved, *base);
  }
  const YAML::Node hw = root["hardware"];
  if (hw.IsDefined() && hw.IsScalar() && std::any_of(paths.begin(), paths.end(), uses_hardware)) {
    out.base_overrides.push_back("hardware=" + flow_yaml(models::to_yaml(base->hardware)));
  }

  if (section.IsDefined() && !section.IsNull()) {
    for (const auto& kv : section) {
      const std::string path = kv.first.Scalar();
      const std::string field = "uncertain." + path;
      const auto where = ctx.locate(kv.second, field);
      const YAML::Node value = find_path(resolved, path);
      if (!value.IsDefined() || !value.IsScalar()) {
        return Error::at(ctx.locate(kv.first, field), field,
                         "no such scalar field in the resolved scenario (see `ntpsim check`)");
      }
      const auto kind = kind_of(value.Scalar());
      if (!kind) {
        return Error::at(where, field,
                         fmt::format("the field's value \"{}\" is not a quantity", value.Scalar()));
      }
      UncertainInput in;
      in.path = path;
      in.kind = *kind;
      in.declared = true;
      in.base = *parse_kind(*kind, value.Scalar());
      in.integer = *kind == QuantityKind::kNumber && is_integer_text(value.Scalar());
      in.source = fmt::format("uncertain: at {}", where.to_string());
      NTPSIM_RETURN_IF_ERROR(
          parse_entry(kv.second, in.kind, in.integer, ctx, field, in.distribution));
      if (const std::string why = in.distribution.invalid_reason(); !why.empty()) {
        return Error::at(where, field, why);
      }
      if (oat_uses_ends(in.distribution)) {
        in.lo = in.distribution.p0;
        in.hi = in.distribution.p1;
      } else {
        in.lo = in.distribution.quantile(kOatLowQuantile);
        in.hi = in.distribution.quantile(kOatHighQuantile);
      }
      for (double b : values_to_check(in)) {
        const Status st = check_bound(file, out.base_overrides, in, b);
        if (!st.ok()) {
          const bool bound = b == in.lo || b == in.hi;
          const std::string shown = format_quantity(in.kind, b);
          return Error::at(
              where, field,
              bound ? fmt::format("bound {} is not valid for the field: {}", shown,
                                  st.error().message)
                    : fmt::format("the distribution reaches {} (truncate it with low: or high:), "
                                  "which is not valid for the field: {}",
                                  shown, st.error().message));
        }
      }
      out.inputs.push_back(in);
    }
    return out;
  }

  // Leaves `in` out with a note when a bound is one the field refuses.
  auto add_default = [&](UncertainInput in) {
    in.distribution.kind = DistributionKind::kUniform;
    in.distribution.range = true;
    in.distribution.p0 = in.lo;
    in.distribution.p1 = in.hi;
    for (double b : {in.lo, in.hi}) {
      const Status st = check_bound(file, out.base_overrides, in, b);
      if (!st.ok()) {
        out.notes.push_back(fmt::format("{}: default bound {} left it out: {}", in.path,
                                        format_quantity(in.kind, b), st.error().message));
        return;
      }
    }
    out.inputs.push_back(std::move(in));
  };
  // The recovery costs: their sourced plausible range.
  for (const auto& row : recovery_cost_ranges()) {
    const std::string path(row.field);
    // A field inside a setting the scenario does not have (a scaling's exponent when the cost does
    // not scale: `none`) has nothing to vary.
    if (const std::string parent = path.substr(0, path.rfind('.'));
        !find_path(resolved, parent).IsMap()) {
      out.notes.push_back(
          fmt::format("{}: the scenario sets no {} (none), left out", path, parent));
      continue;
    }
    const YAML::Node value = find_path(resolved, path);
    if (!value.IsDefined() || !value.IsScalar()) continue;
    const auto kind = kind_of(value.Scalar());
    if (!kind) continue;
    UncertainInput in;
    in.path = path;
    in.kind = *kind;
    in.base = *parse_kind(*kind, value.Scalar());
    in.lo = std::min(row.low, in.base);
    in.hi = std::max(row.high, in.base);
    in.source = fmt::format("sourced range {}-{}: {}", format_quantity(in.kind, row.low),
                            format_quantity(in.kind, row.high), row.source);
    if (in.lo < row.low || in.hi > row.high) {
      out.notes.push_back(fmt::format(
          "{}: the resolved value {} lies outside the sourced range {}-{}; the range is widened "
          "to include it",
          path, format_quantity(in.kind, in.base), format_quantity(in.kind, row.low),
          format_quantity(in.kind, row.high)));
    }
    if (!(in.lo < in.hi)) {
      out.notes.push_back(fmt::format("{}: no room to vary, left out", path));
      continue;
    }
    add_default(std::move(in));
  }
  for (const auto& path : paths) {
    const YAML::Node value = find_path(resolved, path);
    if (!value.IsDefined() || !value.IsScalar()) continue;
    const auto kind = kind_of(value.Scalar());
    if (!kind) continue;
    UncertainInput in;
    in.path = path;
    in.kind = *kind;
    in.base = *parse_kind(*kind, value.Scalar());
    in.source = "default +-50%";
    if (!(in.base > 0)) continue;
    in.lo = 0.5 * in.base;
    in.hi = 1.5 * in.base;
    if (path.ends_with("efficiency")) in.hi = std::min(in.hi, 1.0);
    if (path == "hardware.max_power") {
      // A cap at TDP is the profile saying the board cannot be boosted: no range to vary.
      if (!(in.base > base->hardware.tdp_w)) {
        out.notes.push_back(
            fmt::format("{}: equals TDP in the profile (no boost headroom), left out", path));
        continue;
      }
      in.lo = std::max(in.lo, base->hardware.tdp_w);
    }
    if (!(in.lo < in.hi)) {
      out.notes.push_back(fmt::format("{}: no room to vary, left out", path));
      continue;
    }
    add_default(std::move(in));
  }
  if (out.inputs.empty()) {
    return Error::bad_input(fmt::format(
        "{}: no uncertain inputs: declare an `uncertain:` section (docs/sensitivity.md)", file));
  }
  return out;
}

}  // namespace ntpsim::sim
