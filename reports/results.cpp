#include "reports/results.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

namespace ntpsim::reports {
namespace {

using nlohmann::json;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Reads fields with their paths; remembers the first error and returns defaults after it, so the
// parsing code reads top to bottom without an early return per field.
class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  bool failed() const { return error_.has_value(); }
  Error error() const { return *error_; }

  void fail(const std::string& path, const std::string& what) {
    if (!error_) error_ = Error::bad_input(fmt::format("{}: {}: {}", source_, path, what));
  }

  const json* field(const json& obj, const char* key, const std::string& path, bool required) {
    if (!obj.is_object()) {
      fail(path, "expected an object");
      return nullptr;
    }
    auto it = obj.find(key);
    if (it == obj.end()) {
      if (required) fail(join(path, key), "missing (required by docs/results-schema.md)");
      return nullptr;
    }
    return &*it;
  }

  std::string str(const json& obj, const char* key, const std::string& path, bool required = true) {
    const json* v = field(obj, key, path, required);
    if (v == nullptr) return {};
    if (!v->is_string()) {
      fail(join(path, key), "expected a string");
      return {};
    }
    return v->get<std::string>();
  }

  // A number; null reads as NaN (the writer's encoding of a value it could not compute).
  double num(const json& obj, const char* key, const std::string& path, bool required = true,
             double fallback = kNaN) {
    const json* v = field(obj, key, path, required);
    if (v == nullptr) return fallback;
    if (v->is_null()) return kNaN;
    if (!v->is_number()) {
      fail(join(path, key), "expected a number");
      return fallback;
    }
    return v->get<double>();
  }

  int64_t integer(const json& obj, const char* key, const std::string& path, bool required = true) {
    const json* v = field(obj, key, path, required);
    if (v == nullptr) return 0;
    if (!v->is_number_integer() && !v->is_number_unsigned()) {
      fail(join(path, key), "expected an integer");
      return 0;
    }
    return v->get<int64_t>();
  }

  bool boolean(const json& obj, const char* key, const std::string& path, bool fallback) {
    const json* v = field(obj, key, path, false);
    if (v == nullptr) return fallback;
    if (!v->is_boolean()) {
      fail(join(path, key), "expected true or false");
      return fallback;
    }
    return v->get<bool>();
  }

  // An array field (empty when optional and absent).
  const json& array(const json& obj, const char* key, const std::string& path, bool required) {
    static const json kEmpty = json::array();  // NOLINT: immutable shared empty value
    const json* v = field(obj, key, path, required);
    if (v == nullptr) return kEmpty;
    if (!v->is_array()) {
      fail(join(path, key), "expected an array");
      return kEmpty;
    }
    return *v;
  }

  // An array of strings at `key` (absent: empty unless required); a non-string element is
  // refused at its index with `what` ("expected a string").
  std::vector<std::string> strings(const json& obj, const char* key, const std::string& path,
                                   bool required, const char* what) {
    std::vector<std::string> out;
    const json& a = array(obj, key, path, required);
    for (size_t i = 0; i < a.size(); ++i) {
      if (a[i].is_string())
        out.push_back(a[i].get<std::string>());
      else
        fail(at(join(path, key), i), what);
    }
    return out;
  }

  static std::string join(const std::string& path, const char* key) {
    return path.empty() ? std::string(key) : path + "." + key;
  }
  static std::string at(const std::string& path, size_t i) {
    return fmt::format("{}[{}]", path, i);
  }

 private:
  std::string source_;
  std::optional<Error> error_;
};

MetricSummary read_stat(Reader& r, const json& j, const std::string& path) {
  MetricSummary s;
  s.mean = r.num(j, "mean", path);
  s.ci95_lo = r.num(j, "ci95_lo", path);
  s.ci95_hi = r.num(j, "ci95_hi", path);
  s.sd = r.num(j, "sd", path, false);
  s.p5 = r.num(j, "p5", path, false);
  s.p50 = r.num(j, "p50", path, false);
  s.p95 = r.num(j, "p95", path, false);
  s.min = r.num(j, "min", path, false);
  s.max = r.num(j, "max", path, false);
  s.n = r.integer(j, "n", path);
  return s;
}

StrategyResult read_strategy(Reader& r, const json& j, const std::string& path) {
  StrategyResult s;
  s.name = r.str(j, "name", path);
  s.label = r.str(j, "label", path, false);
  if (s.label.empty()) s.label = s.name;
  s.checkpoint_interval_s = r.num(j, "checkpoint_interval_s", path, false);
  s.resume = r.str(j, "resume", path, false);
  const json* summary = r.field(j, "summary", path, true);
  if (summary != nullptr) {
    if (!summary->is_object())
      r.fail(Reader::join(path, "summary"), "expected an object");
    else {
      for (const auto& [key, value] : summary->items()) {
        s.summary[key] = read_stat(r, value, Reader::join(path, "summary") + "." + key);
      }
    }
  }
  const json& reps = r.array(j, "replications", path, false);
  for (size_t i = 0; i < reps.size(); ++i) {
    const std::string rp = Reader::at(Reader::join(path, "replications"), i);
    if (!reps[i].is_object()) {
      r.fail(rp, "expected an object of metric values");
      break;
    }
    std::map<std::string, double> row;
    for (const auto& [key, value] : reps[i].items()) {
      if (value.is_null())
        row[key] = kNaN;
      else if (value.is_number())
        row[key] = value.get<double>();
      else
        r.fail(rp + "." + key, "expected a number");
    }
    s.replications.push_back(std::move(row));
  }
  return s;
}

Context read_context(Reader& r, const json& j) {
  const std::string p = "context";
  Context c;
  c.tool = r.str(j, "tool", p, false);
  c.version = r.str(j, "version", p);
  c.git_sha = r.str(j, "git_sha", p);
  c.build_type = r.str(j, "build_type", p);
  c.scenario_name = r.str(j, "scenario_name", p);
  c.scenario_file = r.str(j, "scenario_file", p, false);
  c.scenario_hash = r.str(j, "scenario_hash", p);
  const json* seed = r.field(j, "seed", p, true);
  if (seed != nullptr) {
    if (seed->is_number_unsigned() || (seed->is_number_integer() && seed->get<int64_t>() >= 0))
      c.seed = seed->get<uint64_t>();
    else
      r.fail("context.seed", "expected a non-negative integer");
  }
  c.replications = r.integer(j, "replications", p);
  c.hardware_profile = r.str(j, "hardware_profile", p);
  c.profile_origin = r.str(j, "profile_origin", p);
  c.step_model = r.str(j, "step_model", p, false);
  c.failures_during_pause = r.str(j, "failures_during_pause", p, false);
  c.gpus = r.integer(j, "gpus", p, false);
  c.horizon_s = r.num(j, "horizon_s", p, false, 0.0);
  c.train_tokens = r.num(j, "train_tokens", p, false, 0.0);
  c.job_gpus = r.integer(j, "job_gpus", p, false);
  c.checkpoint_interval_s = r.num(j, "checkpoint_interval_s", p, false);
  c.ideal_tokens_per_s = r.num(j, "ideal_tokens_per_s", p, false);
  return c;
}

Timeline read_timeline(Reader& r, const json& j, const std::vector<StrategyResult>& order) {
  const std::string p = "timeline";
  Timeline t;
  t.replication = r.integer(j, "replication", p, false);
  t.horizon_s = r.num(j, "horizon_s", p);
  t.domains = r.integer(j, "domains", p, false);
  t.gpus_per_domain = r.integer(j, "gpus_per_domain", p, false);
  const json& failures = r.array(j, "failures", p, false);
  for (size_t i = 0; i < failures.size(); ++i) {
    const std::string fp = Reader::at(p + ".failures", i);
    const json& f = failures[i];
    FailureSpan e;
    e.t_s = r.num(f, "t_s", fp);
    e.end_s = r.num(f, "end_s", fp);
    e.domain = r.integer(f, "domain", fp);
    e.gpus = r.integer(f, "gpus", fp);
    e.kind = r.str(f, "kind", fp, false);
    e.component = r.str(f, "component", fp, false);
    e.interrupts = r.boolean(f, "interrupts", fp, true);
    if (!r.failed() && !(e.end_s >= e.t_s)) r.fail(fp + ".end_s", "ends before it starts");
    t.failures.push_back(std::move(e));
  }
  const json* strategies = r.field(j, "strategies", p, false);
  if (strategies == nullptr) return t;
  if (!strategies->is_object()) {
    r.fail(p + ".strategies", "expected an object keyed by strategy name");
    return t;
  }
  // Keyed by label; documents written before labels keyed it by strategy name.
  std::vector<std::string> names;
  for (const auto& s : order) {
    const std::string& key = strategies->contains(s.label) ? s.label : s.name;
    if (strategies->contains(key) && std::find(names.begin(), names.end(), key) == names.end())
      names.push_back(key);
  }
  for (const auto& [name, value] : strategies->items()) {
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  for (const auto& name : names) {
    const std::string sp = p + ".strategies." + name;
    const json& s = (*strategies)[name];
    TimelineTrack st;
    st.strategy = name;
    const json& segments = r.array(s, "segments", sp, true);
    for (size_t i = 0; i < segments.size(); ++i) {
      const std::string gp = Reader::at(sp + ".segments", i);
      JobSegment g;
      g.t_s = r.num(segments[i], "t_s", gp);
      g.end_s = r.num(segments[i], "end_s", gp);
      g.state = r.str(segments[i], "state", gp);
      g.throughput = r.num(segments[i], "throughput", gp);
      g.usable_gpus = r.integer(segments[i], "usable_gpus", gp);
      g.failed_gpus = r.integer(segments[i], "failed_gpus", gp);
      if (!r.failed() && !(g.end_s >= g.t_s)) r.fail(gp + ".end_s", "ends before it starts");
      // Contiguous up to rounding (1 µs, the engine's time resolution).
      if (!r.failed() && !st.segments.empty() && std::fabs(g.t_s - st.segments.back().end_s) > 1e-6)
        r.fail(gp + ".t_s", "segments must be contiguous (starts where the previous one ended)");
      st.segments.push_back(std::move(g));
    }
    const json& marks = r.array(s, "marks", sp, false);
    for (size_t i = 0; i < marks.size(); ++i) {
      const std::string mp = Reader::at(sp + ".marks", i);
      JobMark m{r.num(marks[i], "t_s", mp), r.str(marks[i], "type", mp),
                r.num(marks[i], "duration_s", mp, false, 0.0)};
      if (!r.failed() && !(m.duration_s >= 0.0))
        r.fail(mp + ".duration_s", fmt::format("{} is negative", m.duration_s));
      st.marks.push_back(std::move(m));
    }
    const json& domains = r.array(s, "domains", sp, false);
    for (size_t i = 0; i < domains.size(); ++i) {
      const std::string dp = Reader::at(sp + ".domains", i);
      DomainChange d;
      d.domain = r.integer(domains[i], "domain", dp);
      d.t_s = r.num(domains[i], "t_s", dp);
      d.state = r.str(domains[i], "state", dp);
      d.tp = r.integer(domains[i], "tp", dp, false);
      d.power_ratio = r.num(domains[i], "power_ratio", dp, false, 1.0);
      st.domains.push_back(std::move(d));
    }
    st.truncated = r.boolean(s, "truncated", sp, false);
    st.recorded_until_s = r.num(s, "recorded_until_s", sp, false,
                                st.segments.empty() ? 0.0 : st.segments.back().end_s);
    if (!r.failed() && !st.segments.empty() &&
        std::fabs(st.recorded_until_s - st.segments.back().end_s) > 1e-6)
      r.fail(sp + ".recorded_until_s", "differs from the end of the last segment");
    t.strategies.push_back(std::move(st));
  }
  return t;
}

std::vector<PairedComparison> read_paired(Reader& r, const json& doc, const std::string& path) {
  std::vector<PairedComparison> out;
  const json& paired = r.array(doc, "paired", path, false);
  for (size_t i = 0; i < paired.size(); ++i) {
    const std::string pp = Reader::at(Reader::join(path, "paired"), i);
    PairedComparison d;
    d.strategy = r.str(paired[i], "strategy_label", pp, false);
    if (d.strategy.empty()) d.strategy = r.str(paired[i], "strategy", pp);
    d.baseline = r.str(paired[i], "baseline_label", pp, false);
    if (d.baseline.empty()) d.baseline = r.str(paired[i], "baseline", pp);
    d.metric = r.str(paired[i], "metric", pp);
    d.mean = r.num(paired[i], "mean", pp);
    d.ci95_lo = r.num(paired[i], "ci95_lo", pp);
    d.ci95_hi = r.num(paired[i], "ci95_hi", pp);
    d.n = r.integer(paired[i], "n", pp);
    out.push_back(std::move(d));
  }
  return out;
}

std::optional<Verdict> read_verdict(Reader& r, const json& doc, const std::string& path) {
  const json* j = r.field(doc, "verdict", path, false);
  if (j == nullptr || j->is_null()) return std::nullopt;
  const std::string p = Reader::join(path, "verdict");
  Verdict v;
  v.metric = r.str(*j, "metric", p);
  v.winner = r.str(*j, "winner", p);
  v.winner_label = r.str(*j, "winner_label", p, false);
  if (v.winner_label.empty()) v.winner_label = v.winner;
  v.winner_mean = r.num(*j, "winner_mean", p);
  v.winner_ci95_lo = r.num(*j, "winner_ci95_lo", p, false);
  v.winner_ci95_hi = r.num(*j, "winner_ci95_hi", p, false);
  v.runner_up = r.str(*j, "runner_up", p, false);
  v.runner_up_label = r.str(*j, "runner_up_label", p, false);
  if (v.runner_up_label.empty()) v.runner_up_label = v.runner_up;
  if (!v.runner_up.empty()) {
    const json* m = r.field(*j, "margin", p, true);
    if (m != nullptr) {
      const std::string mp = p + ".margin";
      v.margin_mean = r.num(*m, "mean", mp);
      v.margin_ci95_lo = r.num(*m, "ci95_lo", mp);
      v.margin_ci95_hi = r.num(*m, "ci95_hi", mp);
      v.margin_n = r.integer(*m, "n", mp);
    }
  }
  v.tied = r.boolean(*j, "tied", p, false);
  v.tied_with = r.strings(*j, "tied_with", p, false, "expected a strategy name");
  v.tied_with_labels = r.strings(*j, "tied_with_labels", p, false, "expected a strategy label");
  if (v.tied_with_labels.empty()) {
    v.tied_with_labels = v.tied_with;
  } else if (v.tied_with_labels.size() != v.tied_with.size()) {
    r.fail(Reader::join(p, "tied_with_labels"), "expected one label per strategy in tied_with");
  }
  v.tokens_per_s_per_gpu = r.num(*j, "tokens_per_s_per_gpu", p, false);
  v.time_to_train_days = r.num(*j, "time_to_train_days", p, false);
  v.setting = r.str(*j, "setting", p, false);
  if (const json* pt = r.field(*j, "point", p, false); pt != nullptr)
    v.point = r.integer(*j, "point", p);
  if (const json* vals = r.field(*j, "values", p, false); vals != nullptr && vals->is_object()) {
    for (const auto& [key, value] : vals->items())
      v.values[key] = value.is_string() ? value.get<std::string>() : value.dump();
  }
  return v;
}

Sweep read_sweep(Reader& r, const json& j) {
  const std::string p = "sweep";
  Sweep s;
  s.parameters = r.strings(j, "parameters", p, true, "expected a string");
  const json& points = r.array(j, "points", p, true);
  for (size_t i = 0; i < points.size(); ++i) {
    const std::string pp = Reader::at(p + ".points", i);
    SweepPoint point;
    const json* values = r.field(points[i], "values", pp, true);
    if (values != nullptr && values->is_object()) {
      for (const auto& [key, value] : values->items()) {
        // Values are written as the user wrote them; numbers are accepted too.
        point.values[key] = value.is_string() ? value.get<std::string>() : value.dump();
      }
    } else if (values != nullptr) {
      r.fail(pp + ".values", "expected an object");
    }
    for (const auto& name : s.parameters) {
      if (!r.failed() && point.values.count(name) == 0)
        r.fail(pp + ".values", fmt::format("no value for the varied parameter '{}'", name));
    }
    const json& strategies = r.array(points[i], "strategies", pp, true);
    for (size_t k = 0; k < strategies.size(); ++k) {
      point.strategies.push_back(
          read_strategy(r, strategies[k], Reader::at(pp + ".strategies", k)));
    }
    point.paired = read_paired(r, points[i], pp);
    point.verdict = read_verdict(r, points[i], pp);
    s.points.push_back(std::move(point));
  }
  return s;
}

// Range checks of what was read (after the types are known to be right): a results document
// whose numbers cannot be true (a goodput of 7.5, a negative GPU count, a CI that does not
// contain its mean) is refused with the file and the field, instead of being drawn.
// Fractions lie in [0, 1]; GPUs, counts, MWh and days are >= 0; an interval's low end is at most
// its mean and its high end at least; percentiles are ordered. NaN (null) passes: it means
// "not computed". The tolerance covers the rounding of values written with 17 digits.
constexpr double kRangeTolerance = 1e-9;

bool is_fraction_unit(const std::string& unit) {
  return unit == "fraction";
}
bool is_nonnegative_unit(const std::string& unit) {
  return unit == "GPUs" || unit == "count" || unit == "MWh" || unit == "days" ||
         unit == "tokens/s/GPU";
}

void check_value(Reader& r, const std::string& path, double v, const std::string& unit) {
  if (r.failed() || std::isnan(v)) return;
  if (std::isinf(v)) {
    r.fail(path, "is infinite (write null for a value that could not be computed)");
  } else if (is_fraction_unit(unit) && (v < -kRangeTolerance || v > 1.0 + kRangeTolerance)) {
    r.fail(path, fmt::format("{} is outside [0, 1] (a fraction)", v));
  } else if (is_nonnegative_unit(unit) && v < -kRangeTolerance) {
    r.fail(path, fmt::format("{} is negative (unit {})", v, unit));
  }
}

void check_order(Reader& r, const std::string& path, const char* lo_name, double lo,
                 const char* hi_name, double hi) {
  if (r.failed() || std::isnan(lo) || std::isnan(hi)) return;
  const double slack = kRangeTolerance * std::max(1.0, std::fabs(hi));
  if (lo > hi + slack)
    r.fail(path, fmt::format("{} = {} exceeds {} = {}", lo_name, lo, hi_name, hi));
}

void check_summary(Reader& r, const std::string& path, const MetricSummary& s,
                   const std::string& unit) {
  for (const auto& [name, v] : {std::pair{"mean", s.mean},
                                {"p5", s.p5},
                                {"p50", s.p50},
                                {"p95", s.p95},
                                {"min", s.min},
                                {"max", s.max}})
    check_value(r, path + "." + name, v, unit);
  if (!r.failed() && s.sd < 0.0) r.fail(path + ".sd", fmt::format("{} is negative", s.sd));
  if (!r.failed() && s.n < 0) r.fail(path + ".n", fmt::format("{} is negative", s.n));
  check_order(r, path + ".ci95_lo", "ci95_lo", s.ci95_lo, "mean", s.mean);
  check_order(r, path + ".ci95_hi", "mean", s.mean, "ci95_hi", s.ci95_hi);
  check_order(r, path + ".min", "min", s.min, "mean", s.mean);
  check_order(r, path + ".max", "mean", s.mean, "max", s.max);
  check_order(r, path + ".p50", "p5", s.p5, "p50", s.p50);
  check_order(r, path + ".p95", "p50", s.p50, "p95", s.p95);
}

void check_strategy(Reader& r, const Results& out, const StrategyResult& s,
                    const std::string& path) {
  for (const auto& [key, stat] : s.summary)
    check_summary(r, path + ".summary." + key, stat, out.metric(key).unit);
  for (size_t i = 0; i < s.replications.size(); ++i) {
    for (const auto& [key, v] : s.replications[i])
      check_value(r, Reader::at(path + ".replications", i) + "." + key, v, out.metric(key).unit);
  }
}

void check_ranges(Reader& r, const Results& out) {
  if (r.failed()) return;
  if (out.context.replications < 0)
    r.fail("context.replications", fmt::format("{} is negative", out.context.replications));
  if (!r.failed() && out.context.horizon_s < 0.0)
    r.fail("context.horizon_s", fmt::format("{} is negative", out.context.horizon_s));
  for (size_t i = 0; i < out.strategies.size(); ++i)
    check_strategy(r, out, out.strategies[i], Reader::at("strategies", i));
  for (size_t i = 0; i < out.paired.size(); ++i) {
    const PairedComparison& d = out.paired[i];
    const std::string pp = Reader::at("paired", i);
    if (is_fraction_unit(out.metric(d.metric).unit) && !r.failed() && std::fabs(d.mean) > 1.0)
      r.fail(pp + ".mean",
             fmt::format("{} is outside [-1, 1] (a difference of fractions)", d.mean));
    check_order(r, pp + ".ci95_lo", "ci95_lo", d.ci95_lo, "mean", d.mean);
    check_order(r, pp + ".ci95_hi", "mean", d.mean, "ci95_hi", d.ci95_hi);
  }
  if (out.verdict) {
    check_value(r, "verdict.winner_mean", out.verdict->winner_mean, "fraction");
    check_value(r, "verdict.tokens_per_s_per_gpu", out.verdict->tokens_per_s_per_gpu,
                "tokens/s/GPU");
    check_order(r, "verdict.margin.ci95_lo", "ci95_lo", out.verdict->margin_ci95_lo, "mean",
                out.verdict->margin_mean);
    check_order(r, "verdict.margin.ci95_hi", "mean", out.verdict->margin_mean, "ci95_hi",
                out.verdict->margin_ci95_hi);
  }
  if (out.sweep) {
    for (size_t i = 0; i < out.sweep->points.size(); ++i) {
      const auto& pt = out.sweep->points[i];
      for (size_t k = 0; k < pt.strategies.size(); ++k)
        check_strategy(r, out, pt.strategies[k],
                       Reader::at(Reader::at("sweep.points", i) + ".strategies", k));
    }
  }
  if (out.timeline) {
    for (const auto& st : out.timeline->strategies) {
      for (size_t i = 0; i < st.segments.size(); ++i) {
        const JobSegment& g = st.segments[i];
        const std::string gp = Reader::at("timeline.strategies." + st.strategy + ".segments", i);
        if (r.failed()) return;
        if (g.throughput < 0.0 || g.throughput > 2.0)
          r.fail(gp + ".throughput",
                 fmt::format("{} is outside [0, 2] (relative to the ideal rate)", g.throughput));
        else if (g.usable_gpus < 0)
          r.fail(gp + ".usable_gpus", fmt::format("{} is negative", g.usable_gpus));
        else if (g.failed_gpus < 0)
          r.fail(gp + ".failed_gpus", fmt::format("{} is negative", g.failed_gpus));
      }
    }
  }
}

// 1-based line and column of a byte offset, for JSON syntax errors.
std::pair<int, int> line_col(std::string_view text, size_t byte) {
  int line = 1;
  int col = 1;
  for (size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return {line, col};
}

}  // namespace

MetricColumn Results::metric(std::string_view key) const {
  for (const auto& m : metrics) {
    if (m.key == key) return m;
  }
  return MetricColumn{std::string(key), std::string(key), ""};
}

const std::vector<std::string>& badput_keys() {
  static const std::vector<std::string> kKeys = {// NOLINT: immutable table
                                                 "badput_checkpoint", "badput_rollback",
                                                 "badput_recovery",   "badput_stall",
                                                 "badput_degraded",   "badput_reshard"};
  return kKeys;
}

Result<Results> parse_results(std::string_view json_text, const std::string& source) {
  json doc;
  try {
    doc = json::parse(json_text.begin(), json_text.end());
  } catch (const json::parse_error& e) {
    // e.byte is 1-based and points just past the offending character.
    const auto [line, col] = line_col(json_text, e.byte > 0 ? e.byte - 1 : 0);
    return Error::at(SourceLocation{source, line, col}, "", "not valid JSON");
  }
  return read_results(doc, source);
}

Result<Results> read_results(const nlohmann::json& doc, const std::string& source) {
  Reader r(source);
  Results out;
  if (doc.is_object() && doc.contains("kind") && doc.at("kind") == "plan") {
    r.fail("kind",
           "'plan' is a plan document, not run or sweep results (its report comes from "
           "`ntpsim report` or `ntpsim plan PLAN --report r.html`)");
  }
  out.schema = r.str(doc, "schema", "");
  if (!r.failed() && out.schema.rfind("ntpsim-results/1", 0) != 0)
    r.fail("schema", fmt::format("'{}' is not ntpsim-results/1", out.schema));
  out.kind = r.str(doc, "kind", "");
  if (!r.failed() && out.kind != "run" && out.kind != "sweep")
    r.fail("kind", fmt::format("'{}' is neither 'run' nor 'sweep'", out.kind));
  const json* context = r.field(doc, "context", "", true);
  if (context != nullptr) out.context = read_context(r, *context);
  out.warnings = r.strings(doc, "warnings", "", false, "expected a string");
  if (doc.is_object() && doc.contains("scenario")) out.scenario = doc.at("scenario");
  const json& metrics = r.array(doc, "metrics", "", true);
  for (size_t i = 0; i < metrics.size(); ++i) {
    const std::string mp = Reader::at("metrics", i);
    MetricColumn m;
    m.key = r.str(metrics[i], "key", mp);
    m.label = r.str(metrics[i], "label", mp, false);
    if (m.label.empty()) m.label = m.key;
    m.unit = r.str(metrics[i], "unit", mp, false);
    out.metrics.push_back(std::move(m));
  }
  const json& strategies = r.array(doc, "strategies", "", true);
  for (size_t i = 0; i < strategies.size(); ++i) {
    out.strategies.push_back(read_strategy(r, strategies[i], Reader::at("strategies", i)));
  }
  if (!r.failed() && out.kind == "run" && out.strategies.empty())
    r.fail("strategies", "a run has at least one strategy");
  out.paired = read_paired(r, doc, "");
  out.verdict = read_verdict(r, doc, "");
  const json* timeline = r.field(doc, "timeline", "", false);
  if (timeline != nullptr && !timeline->is_null())
    out.timeline = read_timeline(r, *timeline, out.strategies);
  const json* sweep = r.field(doc, "sweep", "", out.kind == "sweep");
  if (sweep != nullptr && !sweep->is_null()) out.sweep = read_sweep(r, *sweep);
  check_ranges(r, out);
  if (r.failed()) return r.error();
  return out;
}

Result<nlohmann::json> load_document(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return Error::bad_input(fmt::format("{}: is a directory, expected a results JSON file", path));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error::bad_input(fmt::format("{}: cannot open the results file", path));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Error::bad_input(fmt::format("{}: cannot read the results file", path));
  const std::string body = text.str();
  try {
    return json::parse(body.begin(), body.end());
  } catch (const json::parse_error& e) {
    const auto [line, col] = line_col(body, e.byte > 0 ? e.byte - 1 : 0);
    return Error::at(SourceLocation{path, line, col}, "", "not valid JSON");
  }
}

Result<Results> load_results(const std::string& path) {
  auto doc = load_document(path);
  if (!doc.ok()) return doc.error();
  return read_results(*doc, path);
}

}  // namespace ntpsim::reports
