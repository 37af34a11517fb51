// Sensitivity analysis: see sensitivity.h.
#include "sim/sensitivity/sensitivity.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>

#include "models/base/random.h"
#include "models/base/units.h"
#include "models/hardware.h"
#include "sim/metrics/aggregate.h"
#include "sim/metrics/metrics.h"
#include "sim/montecarlo/montecarlo.h"
#include "sim/scenario/loader.h"
#include "sim/scenario/printer.h"
#include "sim/scenario/tree.h"

namespace ntpsim::sim {
namespace {

using json = nlohmann::ordered_json;

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

const char* kind_name(QuantityKind kind) {
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

std::string plain(double v) {
  return fmt::format("{:.17g}", v);
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

// Default inputs: candidate paths present in the resolved YAML with a positive value.
std::vector<std::string> default_paths(const YAML::Node& resolved, const Scenario& s) {
  std::vector<std::string> paths;
  for (const char* k : {"detection", "restart", "reconfigure", "spare_swap"}) {
    paths.push_back(fmt::format("recovery.{}", k));
  }
  paths.push_back("checkpoint.write");
  paths.push_back("checkpoint.restore");
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

double goodput_of(const ReplicationMetrics& m) {
  return at(m, Metric::kGoodput);
}

// Mean of `v` (all finite by construction of the metrics; NaN stays NaN).
double mean(const std::vector<double>& v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

class Evaluator {
 public:
  Evaluator(const std::string& file, const UncertainInputs& inputs,
            const SensitivityOptions& options, int64_t planned)
      : file_(file), inputs_(inputs), options_(options), planned_(planned) {}

  // The scenario with input j at values[j] for every j in `set` (others at their resolved
  // values).
  Result<Evaluation> at(const std::vector<std::pair<int, double>>& set) {
    if (options_.cancel != nullptr && options_.cancel->load()) return interrupted();
    std::vector<std::string> overrides = inputs_.base_overrides;
    for (const auto& [j, v] : set) {
      overrides.push_back(uncertain_override(inputs_.inputs[static_cast<size_t>(j)], v));
    }
    auto s = load_scenario(file_, overrides);
    if (!s.ok()) return s.error();
    RunOptions ro;
    ro.replications = options_.replications;
    ro.threads = options_.threads;
    ro.timeline = false;
    ro.cancel = options_.cancel;
    ro.results_document = false;
    auto r = run_monte_carlo(*s, ro);
    if (!r.ok()) {
      if (options_.cancel != nullptr && options_.cancel->load()) return interrupted();
      return r.error();
    }
    Evaluation e;
    for (const auto& st : r->strategies) {
      std::vector<double> g, t;
      for (const auto& m : st.replications) {
        g.push_back(goodput_of(m));
        t.push_back(sim::at(m, Metric::kTimeToTrainDays));
      }
      StrategyPoint p;
      p.goodput = mean(g);
      p.time_to_train_days =
          s->train_tokens > 0 ? mean(t) : std::numeric_limits<double>::quiet_NaN();
      e.strategies.push_back(p);
      e.goodput.push_back(std::move(g));
    }
    for (size_t i = 1; i < e.strategies.size(); ++i) {
      if (e.strategies[i].goodput > e.strategies[static_cast<size_t>(e.winner)].goodput) {
        e.winner = static_cast<int>(i);
      }
    }
    ++done_;
    if (options_.progress) options_.progress(done_, static_cast<int>(planned_));
    return e;
  }

  int done() const { return done_; }

 private:
  Error interrupted() const {
    return Error::runtime(
        fmt::format("interrupted after {} of at most {} evaluations", done_, planned_));
  }

  const std::string& file_;
  const UncertainInputs& inputs_;
  const SensitivityOptions& options_;
  int64_t planned_;
  int done_ = 0;
};

// Wilson score interval (95%) of k successes in n trials.
std::pair<double, double> wilson(int k, int n) {
  if (n == 0) return {0.0, 1.0};
  const double z = 1.959963984540054;
  const double p = static_cast<double>(k) / n;
  const double nn = static_cast<double>(n);
  const double denom = 1 + z * z / nn;
  const double centre = (p + z * z / (2 * nn)) / denom;
  const double half = z * std::sqrt(p * (1 - p) / nn + z * z / (4 * nn * nn)) / denom;
  return {std::max(0.0, centre - half), std::min(1.0, centre + half)};
}

// The bias-corrected correlation ratio of y on x (see sensitivity.h) over the samples `idx`.
double correlation_ratio(const std::vector<double>& x, const std::vector<double>& y,
                         std::vector<size_t> idx) {
  const size_t n = idx.size();
  const size_t bins = static_cast<size_t>(std::floor(std::sqrt(static_cast<double>(n))));
  if (n < 4 || bins < 2) return std::numeric_limits<double>::quiet_NaN();
  // Sort by x (ties by index, so the binning is deterministic).
  std::sort(idx.begin(), idx.end(),
            [&](size_t a, size_t b) { return x[a] != x[b] ? x[a] < x[b] : a < b; });
  double total_mean = 0;
  for (size_t i : idx) total_mean += y[i];
  total_mean /= static_cast<double>(n);
  double ss_total = 0, ss_between = 0;
  for (size_t b = 0; b < bins; ++b) {
    const size_t begin = b * n / bins, end = (b + 1) * n / bins;
    double m = 0;
    for (size_t k = begin; k < end; ++k) m += y[idx[k]];
    m /= static_cast<double>(end - begin);
    ss_between += static_cast<double>(end - begin) * (m - total_mean) * (m - total_mean);
  }
  for (size_t i : idx) ss_total += (y[i] - total_mean) * (y[i] - total_mean);
  if (!(ss_total > 0)) return 0.0;
  const double ms_within = (ss_total - ss_between) / static_cast<double>(n - bins);
  return (ss_between - static_cast<double>(bins - 1) * ms_within) / (ss_total + ms_within);
}

}  // namespace

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
  return plain(value);
}

std::string uncertain_override(const UncertainInput& in, double value) {
  std::string text = in.integer ? fmt::format("{}", std::llround(value)) : plain(value);
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
                       "expected a map of field paths to ranges [low, high]");
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
      if (!kv.second.IsSequence() || kv.second.size() != 2 || !kv.second[0].IsScalar() ||
          !kv.second[1].IsScalar()) {
        return Error::at(where, field, "expected a range [low, high]");
      }
      UncertainInput in;
      in.path = path;
      in.kind = *kind;
      in.declared = true;
      in.base = *parse_kind(*kind, value.Scalar());
      in.integer = *kind == QuantityKind::kNumber && is_integer_text(value.Scalar());
      double bound[2] = {0, 0};
      for (size_t b = 0; b < 2; ++b) {
        auto v = parse_kind(*kind, kv.second[b].Scalar());
        if (!v.ok()) {
          return Error::at(
              ctx.locate(kv.second[b], field), field,
              fmt::format("{} (a {} like the field)", v.error().message, kind_name(*kind)));
        }
        bound[b] = *v;
        if (in.integer && !is_integer_text(kv.second[b].Scalar())) {
          return Error::at(
              ctx.locate(kv.second[b], field), field,
              fmt::format("\"{}\" is not a whole number like the field", kv.second[b].Scalar()));
        }
      }
      if (!(bound[0] < bound[1])) {
        return Error::at(where, field, "low must be below high");
      }
      in.lo = bound[0];
      in.hi = bound[1];
      for (double b : bound) {
        const Status st = check_bound(file, out.base_overrides, in, b);
        if (!st.ok()) {
          return Error::at(where, field,
                           fmt::format("bound {} is not valid for the field: {}",
                                       format_quantity(in.kind, b), st.error().message));
        }
      }
      out.inputs.push_back(in);
    }
    return out;
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
    bool valid = true;
    for (double b : {in.lo, in.hi}) {
      const Status st = check_bound(file, out.base_overrides, in, b);
      if (!st.ok()) {
        out.notes.push_back(fmt::format("{}: default bound {} left it out: {}", path,
                                        format_quantity(in.kind, b), st.error().message));
        valid = false;
        break;
      }
    }
    if (valid) out.inputs.push_back(in);
  }
  if (out.inputs.empty()) {
    return Error::bad_input(fmt::format(
        "{}: no uncertain inputs: declare an `uncertain:` section (docs/sensitivity.md)", file));
  }
  return out;
}

int64_t planned_evaluations(int inputs, const SensitivityOptions& o) {
  const int64_t k = inputs;
  return 1 + 2 * k + 2 * k * static_cast<int64_t>(o.bisection_steps + 1) + o.samples;
}

Result<SensitivityResult> run_sensitivity(const std::string& file,
                                          const std::vector<std::string>& overrides,
                                          const SensitivityOptions& options) {
  if (options.samples != 0 && options.samples < 8) {
    return Error::bad_input("sensitivity: --samples must be 0 or at least 8");
  }
  if (options.bisection_steps < 1 || options.bisection_steps > 60) {
    return Error::bad_input("sensitivity: --bisection-steps must be in [1, 60]");
  }
  auto inputs = read_uncertain_inputs(file, overrides);
  if (!inputs.ok()) return inputs.error();
  const int k = static_cast<int>(inputs->inputs.size());
  const int64_t planned = planned_evaluations(k, options);
  if (planned > options.max_evaluations) {
    return Error::bad_input(fmt::format(
        "sensitivity: {} inputs with {} samples and {} bisection steps plan up to {} "
        "evaluations, over the limit of {}: declare fewer inputs in `uncertain:`, lower "
        "--samples or --bisection-steps, or raise --max-evaluations",
        k, options.samples, options.bisection_steps, planned, options.max_evaluations));
  }
  auto base_scenario = load_scenario(file, inputs->base_overrides);
  if (!base_scenario.ok()) return base_scenario.error();

  SensitivityResult r;
  r.scenario_file = file;
  r.scenario_hash = scenario_hash(*base_scenario);
  r.seed = base_scenario->seed;
  r.time_to_train = base_scenario->train_tokens > 0;
  for (const auto& st : base_scenario->strategies) r.strategies.push_back(st.label);
  r.inputs = inputs->inputs;
  r.notes = inputs->notes;
  const int n_strategies = static_cast<int>(r.strategies.size());
  if (n_strategies < 2) {
    return Error::bad_input(fmt::format("{}: strategies: sensitivity needs at least two", file));
  }

  Evaluator eval(file, *inputs, options, planned);
  auto base = eval.at({});
  if (!base.ok()) return base.error();
  r.base = std::move(*base);
  r.replications = static_cast<int>(r.base.goodput[0].size());
  // Leader and runner-up at the resolved values.
  std::vector<int> order(static_cast<size_t>(n_strategies));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return r.base.strategies[static_cast<size_t>(a)].goodput >
           r.base.strategies[static_cast<size_t>(b)].goodput;
  });
  r.leader = order[0];
  r.runner_up = order[1];
  const auto L = static_cast<size_t>(r.leader), R = static_cast<size_t>(r.runner_up);
  auto diff = [&](const Evaluation& e) {
    return e.strategies[L].goodput - e.strategies[R].goodput;
  };
  const double d_base = diff(r.base);

  // One at a time.
  for (int j = 0; j < k; ++j) {
    const auto& in = r.inputs[static_cast<size_t>(j)];
    auto lo = eval.at({{j, in.lo}});
    if (!lo.ok()) return lo.error();
    auto hi = eval.at({{j, in.hi}});
    if (!hi.ok()) return hi.error();
    TornadoRow row;
    row.input = j;
    row.low = std::move(*lo);
    row.high = std::move(*hi);
    for (int s = 0; s < n_strategies; ++s) {
      const auto i = static_cast<size_t>(s);
      row.swing = std::max(
          row.swing, std::abs(row.high.strategies[i].goodput - row.low.strategies[i].goodput));
    }
    row.changes_winner = row.low.winner != r.base.winner || row.high.winner != r.base.winner;
    r.tornado.push_back(std::move(row));
  }

  // Break-even between the leader and the runner-up, on each side where d changes sign.
  for (const auto& row : r.tornado) {
    const auto& in = r.inputs[static_cast<size_t>(row.input)];
    for (int side = 0; side < 2; ++side) {
      const double d_bound = diff(side == 0 ? row.low : row.high);
      if (!(d_bound < 0) || !(d_base > 0)) continue;  // ties at the bound do not bracket a flip
      double a = side == 0 ? in.lo : in.base;         // d(a) and d(b) differ in sign
      double b = side == 0 ? in.base : in.hi;
      const bool negative_at_a = side == 0;
      Evaluation last;
      for (int step = 0; step < options.bisection_steps; ++step) {
        const double mid = 0.5 * (a + b);
        auto e = eval.at({{row.input, mid}});
        if (!e.ok()) return e.error();
        const bool negative = diff(*e) < 0;
        if (negative == negative_at_a)
          a = mid;
        else
          b = mid;
      }
      BreakEven be;
      be.input = row.input;
      be.value = 0.5 * (a + b);
      be.resolution = 0.5 * (b - a);
      be.runner_up_below = negative_at_a;
      auto e = eval.at({{row.input, be.value}});
      if (!e.ok()) return e.error();
      const PairedDiff pd = paired_difference(e->goodput[L], e->goodput[R]);
      be.diff_mean = pd.mean;
      be.diff_ci95_lo = pd.ci95_lo;
      be.diff_ci95_hi = pd.ci95_hi;
      r.break_even.push_back(be);
    }
  }

  std::stable_sort(r.tornado.begin(), r.tornado.end(),
                   [](const TornadoRow& a, const TornadoRow& b) { return a.swing > b.swing; });

  // Global: Latin hypercube over the ranges.
  GlobalResult& g = r.global;
  g.samples = options.samples;
  if (options.samples > 0) {
    const int n = options.samples;
    g.x.assign(static_cast<size_t>(n), std::vector<double>(static_cast<size_t>(k)));
    const Stream lhs(r.seed, 0, "sensitivity.latin_hypercube");
    for (int j = 0; j < k; ++j) {
      Stream s = lhs.child(static_cast<uint64_t>(j));
      std::vector<int> perm(static_cast<size_t>(n));
      std::iota(perm.begin(), perm.end(), 0);
      for (int i = n - 1; i > 0; --i) {  // Fisher-Yates
        const auto swap_with = static_cast<int>(s.uniform_int(static_cast<uint64_t>(i) + 1));
        std::swap(perm[static_cast<size_t>(i)], perm[static_cast<size_t>(swap_with)]);
      }
      const auto& in = r.inputs[static_cast<size_t>(j)];
      for (int i = 0; i < n; ++i) {
        const double u = (perm[static_cast<size_t>(i)] + s.uniform01()) / n;
        g.x[static_cast<size_t>(i)][static_cast<size_t>(j)] = in.lo + u * (in.hi - in.lo);
      }
    }
    std::vector<double> y;
    for (int i = 0; i < n; ++i) {
      std::vector<std::pair<int, double>> set;
      for (int j = 0; j < k; ++j)
        set.emplace_back(j, g.x[static_cast<size_t>(i)][static_cast<size_t>(j)]);
      auto e = eval.at(set);
      if (!e.ok()) return e.error();
      g.winner.push_back(e->winner);
      std::vector<double> means;
      for (const auto& p : e->strategies) means.push_back(p.goodput);
      g.goodput.push_back(std::move(means));
      y.push_back(diff(*e));
    }
    for (int s = 0; s < n_strategies; ++s) {
      const int wins = static_cast<int>(std::count(g.winner.begin(), g.winner.end(), s));
      const int half = n / 2;
      const int wins_half =
          static_cast<int>(std::count(g.winner.begin(), g.winner.begin() + half, s));
      const auto [lo, hi] = wilson(wins, n);
      g.win_probability.push_back(static_cast<double>(wins) / n);
      g.win_ci95_lo.push_back(lo);
      g.win_ci95_hi.push_back(hi);
      g.win_probability_half.push_back(static_cast<double>(wins_half) / half);
    }
    const Stream boot(r.seed, 0, "sensitivity.bootstrap");
    constexpr int kBootstrap = 200;
    for (int j = 0; j < k; ++j) {
      std::vector<double> xj;
      for (int i = 0; i < n; ++i) xj.push_back(g.x[static_cast<size_t>(i)][static_cast<size_t>(j)]);
      std::vector<size_t> all(static_cast<size_t>(n));
      std::iota(all.begin(), all.end(), size_t{0});
      IndexEstimate est;
      est.first_order = correlation_ratio(xj, y, all);
      est.first_order_half =
          correlation_ratio(xj, y, std::vector<size_t>(all.begin(), all.begin() + n / 2));
      Stream s = boot.child(static_cast<uint64_t>(j));
      double sum = 0, sum2 = 0;
      for (int b = 0; b < kBootstrap; ++b) {
        std::vector<size_t> idx(static_cast<size_t>(n));
        for (auto& v : idx) v = static_cast<size_t>(s.uniform_int(static_cast<uint64_t>(n)));
        const double v = correlation_ratio(xj, y, idx);
        sum += v;
        sum2 += v * v;
      }
      const double m = sum / kBootstrap;
      est.stderr_ =
          std::sqrt(std::max(0.0, sum2 / kBootstrap - m * m) * kBootstrap / (kBootstrap - 1));
      g.index.push_back(est);
    }
  }
  r.evaluations = eval.done();
  return r;
}

namespace {

json num_or_null(double v) {
  return std::isfinite(v) ? json(v) : json(nullptr);
}

std::string csv_num(double v) {
  return std::isfinite(v) ? plain(v) : std::string();
}

// The decisive input: the largest first-order index, else the largest tornado swing.
int decisive_input(const SensitivityResult& r) {
  if (!r.global.index.empty()) {
    int best = 0;
    for (size_t j = 1; j < r.global.index.size(); ++j) {
      if (r.global.index[j].first_order > r.global.index[static_cast<size_t>(best)].first_order) {
        best = static_cast<int>(j);
      }
    }
    return best;
  }
  return r.tornado.empty() ? 0 : r.tornado.front().input;
}

}  // namespace

nlohmann::ordered_json sensitivity_json(const SensitivityResult& r) {
  json j;
  j["kind"] = "sensitivity";
  j["scenario_file"] = r.scenario_file;
  j["scenario_hash"] = r.scenario_hash;
  j["seed"] = r.seed;
  j["replications"] = r.replications;
  j["evaluations"] = r.evaluations;
  j["decision_metric"] = "goodput (mean over replications; higher wins)";
  j["strategies"] = r.strategies;
  json inputs = json::array();
  for (const auto& in : r.inputs) {
    inputs.push_back({{"path", in.path},
                      {"kind", kind_name(in.kind)},
                      {"low", in.lo},
                      {"high", in.hi},
                      {"resolved", in.base},
                      {"source", in.declared ? "uncertain" : "default +-50%"}});
  }
  j["inputs"] = std::move(inputs);
  j["notes"] = r.notes;
  auto eval_json = [&](const Evaluation& e) {
    json s = json::array();
    for (size_t i = 0; i < e.strategies.size(); ++i) {
      s.push_back({{"strategy", r.strategies[i]},
                   {"goodput", e.strategies[i].goodput},
                   {"time_to_train_days", num_or_null(e.strategies[i].time_to_train_days)}});
    }
    return json{{"winner", r.strategies[static_cast<size_t>(e.winner)]}, {"strategies", s}};
  };
  j["base"] = eval_json(r.base);
  j["leader"] = r.strategies[static_cast<size_t>(r.leader)];
  j["runner_up"] = r.strategies[static_cast<size_t>(r.runner_up)];
  json tornado = json::array();
  for (const auto& row : r.tornado) {
    tornado.push_back({{"input", r.inputs[static_cast<size_t>(row.input)].path},
                       {"swing", row.swing},
                       {"changes_winner", row.changes_winner},
                       {"low", eval_json(row.low)},
                       {"high", eval_json(row.high)}});
  }
  j["tornado"] = std::move(tornado);
  json be = json::array();
  for (const auto& b : r.break_even) {
    be.push_back(
        {{"input", r.inputs[static_cast<size_t>(b.input)].path},
         {"value", b.value},
         {"resolution", b.resolution},
         {"runner_up_leads", b.runner_up_below ? "below" : "above"},
         {"goodput_difference",
          {{"mean", b.diff_mean}, {"ci95_lo", b.diff_ci95_lo}, {"ci95_hi", b.diff_ci95_hi}}}});
  }
  j["break_even"] = std::move(be);
  const auto& g = r.global;
  json global;
  global["samples"] = g.samples;
  global["design"] = "latin hypercube, uniform over each range";
  global["index_estimator"] =
      "first-order index of goodput(leader) - goodput(runner_up): bias-corrected correlation "
      "ratio over floor(sqrt(N)) equal-count bins; bootstrap standard error (200 resamples)";
  json wins = json::array();
  for (size_t s = 0; s < g.win_probability.size(); ++s) {
    wins.push_back({{"strategy", r.strategies[s]},
                    {"probability", g.win_probability[s]},
                    {"ci95_lo", g.win_ci95_lo[s]},
                    {"ci95_hi", g.win_ci95_hi[s]},
                    {"probability_first_half", g.win_probability_half[s]}});
  }
  global["win_probability"] = std::move(wins);
  json idx = json::array();
  for (size_t i = 0; i < g.index.size(); ++i) {
    idx.push_back({{"input", r.inputs[i].path},
                   {"first_order", num_or_null(g.index[i].first_order)},
                   {"stderr", num_or_null(g.index[i].stderr_)},
                   {"first_order_first_half", num_or_null(g.index[i].first_order_half)}});
  }
  global["importance"] = std::move(idx);
  j["global"] = std::move(global);
  return j;
}

std::string sensitivity_csv(const SensitivityResult& r) {
  std::string out =
      "input,strategy,low,high,goodput_low,goodput_high,time_to_train_days_low,"
      "time_to_train_days_high,swing,changes_winner\n";
  for (const auto& row : r.tornado) {
    const auto& in = r.inputs[static_cast<size_t>(row.input)];
    for (size_t s = 0; s < r.strategies.size(); ++s) {
      out += fmt::format("{},{},{},{},{},{},{},{},{},{}\n", in.path, r.strategies[s], plain(in.lo),
                         plain(in.hi), plain(row.low.strategies[s].goodput),
                         plain(row.high.strategies[s].goodput),
                         csv_num(row.low.strategies[s].time_to_train_days),
                         csv_num(row.high.strategies[s].time_to_train_days), plain(row.swing),
                         row.changes_winner ? 1 : 0);
    }
  }
  return out;
}

std::string sensitivity_summary(const SensitivityResult& r) {
  std::string out;
  const auto& g = r.global;
  const int decisive = decisive_input(r);
  const std::string decisive_path = r.inputs[static_cast<size_t>(decisive)].path;
  if (!g.win_probability.empty()) {
    size_t best = 0;
    for (size_t s = 1; s < g.win_probability.size(); ++s) {
      if (g.win_probability[s] > g.win_probability[best]) best = s;
    }
    out += fmt::format(
        "{} wins in {:.0f}% ({:.0f}-{:.0f}%) of {} sampled worlds; decisive input: {}\n",
        r.strategies[best], 100 * g.win_probability[best], 100 * g.win_ci95_lo[best],
        100 * g.win_ci95_hi[best], g.samples, decisive_path);
  } else {
    out += fmt::format("{} wins at the resolved values; largest swing: {}\n",
                       r.strategies[static_cast<size_t>(r.base.winner)], decisive_path);
  }
  out += fmt::format("{} evaluations x {} replications, seed {}\n\n", r.evaluations, r.replications,
                     r.seed);
  out += "At the resolved values (mean goodput):\n";
  for (size_t s = 0; s < r.strategies.size(); ++s) {
    out += fmt::format("  {:<24} {:.4f}{}\n", r.strategies[s], r.base.strategies[s].goodput,
                       static_cast<int>(s) == r.base.winner ? "  <- wins" : "");
  }
  out += "\nOne at a time (ranked by swing of mean goodput):\n";
  for (const auto& row : r.tornado) {
    const auto& in = r.inputs[static_cast<size_t>(row.input)];
    out += fmt::format("  {:<40} {:>10} .. {:<10} swing {:.4f}{}\n", in.path,
                       format_quantity(in.kind, in.lo), format_quantity(in.kind, in.hi), row.swing,
                       row.changes_winner
                           ? fmt::format("  CHANGES WINNER ({} / {})",
                                         r.strategies[static_cast<size_t>(row.low.winner)],
                                         r.strategies[static_cast<size_t>(row.high.winner)])
                           : "");
  }
  const std::string& lead = r.strategies[static_cast<size_t>(r.leader)];
  const std::string& second = r.strategies[static_cast<size_t>(r.runner_up)];
  out += fmt::format("\nBreak-even between {} and {}:\n", lead, second);
  if (r.break_even.empty()) out += "  none within the ranges\n";
  for (const auto& b : r.break_even) {
    const auto& in = r.inputs[static_cast<size_t>(b.input)];
    out += fmt::format(
        "  {} overtakes {} when {} {} {} +- {} (goodput difference there {:+.5f}, "
        "95% CI [{:+.5f}, {:+.5f}])\n",
        second, lead, in.path, b.runner_up_below ? "<" : ">", format_quantity(in.kind, b.value),
        format_quantity(in.kind, b.resolution), b.diff_mean, b.diff_ci95_lo, b.diff_ci95_hi);
  }
  if (!g.win_probability.empty()) {
    out +=
        fmt::format("\nGlobal ({} Latin hypercube samples; first half in brackets):\n", g.samples);
    for (size_t s = 0; s < r.strategies.size(); ++s) {
      out += fmt::format("  P(win) {:<24} {:5.1f}%  95% CI [{:.1f}, {:.1f}]%  ({:.1f}%)\n",
                         r.strategies[s], 100 * g.win_probability[s], 100 * g.win_ci95_lo[s],
                         100 * g.win_ci95_hi[s], 100 * g.win_probability_half[s]);
    }
    out += fmt::format("  First-order index of goodput({}) - goodput({}):\n", lead, second);
    for (size_t i = 0; i < g.index.size(); ++i) {
      out += fmt::format("    {:<40} {:+.3f} +- {:.3f}  ({:+.3f})\n", r.inputs[i].path,
                         g.index[i].first_order, g.index[i].stderr_, g.index[i].first_order_half);
    }
  }
  for (const auto& n : r.notes) out += fmt::format("note: {}\n", n);
  return out;
}

}  // namespace ntpsim::sim
