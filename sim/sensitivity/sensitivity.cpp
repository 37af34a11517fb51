// Sensitivity analysis: see sensitivity.h.
#include "sim/sensitivity/sensitivity.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>

#include "models/base/build_info.h"
#include "models/base/random.h"
#include "models/base/units.h"
#include "models/hardware.h"
#include "sim/metrics/aggregate.h"
#include "sim/metrics/metrics.h"
#include "sim/montecarlo/montecarlo.h"
#include "sim/scenario/loader.h"
#include "sim/scenario/printer.h"
#include "sim/scenario/tree.h"
#include "sim/sensitivity/number_text.h"

namespace ntpsim::sim {
namespace {

using sensitivity_internal::round_trip_text;

using json = nlohmann::ordered_json;

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
            const SensitivityOptions& options, const SensitivityHooks& hooks, int64_t planned)
      : file_(file), inputs_(inputs), options_(options), hooks_(hooks), planned_(planned) {}

  // The scenario with input j at values[j] for every j in `set` (others at their resolved
  // values).
  Result<Evaluation> at(const std::vector<std::pair<int, double>>& set) {
    if (options_.cancel != nullptr && options_.cancel->load()) return interrupted();
    const int index = done_;
    if (hooks_.recorded) {
      auto rec = hooks_.recorded(index);
      if (!rec.ok()) return rec.error();
      if (rec->has_value()) {
        ++done_;
        if (options_.progress) options_.progress(done_, static_cast<int>(planned_));
        return std::move(**rec);
      }
    }
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
    ro.distribution = options_.distribution;
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
    if (hooks_.finished) NTPSIM_RETURN_IF_ERROR(hooks_.finished(index, e));
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
  const SensitivityHooks& hooks_;
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

}  // namespace

int64_t planned_evaluations(int inputs, const SensitivityOptions& o) {
  const int64_t k = inputs;
  const int64_t n = o.samples;
  return 1 + 2 * k + 2 * k * static_cast<int64_t>(o.bisection_steps + 1) +
         (o.indices ? n * (k + 2) : 2 * n);
}

Result<SensitivityResult> run_sensitivity(const std::string& file,
                                          const std::vector<std::string>& overrides,
                                          const SensitivityOptions& options,
                                          const SensitivityHooks& hooks) {
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

  Evaluator eval(file, *inputs, options, hooks, planned);
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

  // Break-even between the leader and the runner-up: d is known at the low, resolved and high
  // values; each neighbouring pair (in increasing order) where it changes sign brackets a tie.
  for (const auto& row : r.tornado) {
    const auto& in = r.inputs[static_cast<size_t>(row.input)];
    std::vector<std::pair<double, double>> known = {
        {in.lo, diff(row.low)}, {in.base, d_base}, {in.hi, diff(row.high)}};
    std::stable_sort(known.begin(), known.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    for (size_t p = 0; p + 1 < known.size(); ++p) {
      double a = known[p].first, b = known[p + 1].first;
      const double da = known[p].second, db = known[p + 1].second;
      // Ties at an end do not bracket a flip.
      if (!(a < b) || !((da < 0 && db > 0) || (da > 0 && db < 0))) continue;
      const bool negative_at_a = da < 0;
      for (int step = 0; step < options.bisection_steps; ++step) {
        const double mid = 0.5 * (a + b);
        auto e = eval.at({{row.input, mid}});
        if (!e.ok()) return e.error();
        if ((diff(*e) < 0) == negative_at_a)
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

  // Global: Latin hypercubes A and B over the inputs' distributions, then each AB_i.
  GlobalResult& g = r.global;
  g.samples = options.samples;
  g.indices = options.indices && options.samples > 0;
  if (options.samples > 0) {
    const int n = options.samples;
    std::vector<InputDistribution> dists;
    for (const auto& in : r.inputs) dists.push_back(in.distribution);
    const auto a_rows = to_quantiles(
        latin_hypercube_u(Stream(r.seed, 0, "sensitivity.latin_hypercube"), k, n), dists);
    const auto b_rows = to_quantiles(
        latin_hypercube_u(Stream(r.seed, 0, "sensitivity.latin_hypercube_b"), k, n), dists);
    g.x = a_rows;
    g.x.insert(g.x.end(), b_rows.begin(), b_rows.end());
    auto at_row = [&](const std::vector<double>& x) {
      std::vector<std::pair<int, double>> set;
      for (int j = 0; j < k; ++j) set.emplace_back(j, x[static_cast<size_t>(j)]);
      return eval.at(set);
    };
    std::vector<double> y;  // d on the rows of A, then B
    for (const auto& x : g.x) {
      auto e = at_row(x);
      if (!e.ok()) return e.error();
      g.winner.push_back(e->winner);
      std::vector<double> means;
      for (const auto& p : e->strategies) means.push_back(p.goodput);
      g.goodput.push_back(std::move(means));
      y.push_back(diff(*e));
    }
    const int half = n / 2;
    for (int s = 0; s < n_strategies; ++s) {
      const int wins = static_cast<int>(std::count(g.winner.begin(), g.winner.end(), s));
      const int wins_half =
          static_cast<int>(std::count(g.winner.begin(), g.winner.begin() + half, s) +
                           std::count(g.winner.begin() + n, g.winner.begin() + n + half, s));
      const auto [lo, hi] = wilson(wins, 2 * n);
      g.win_probability.push_back(static_cast<double>(wins) / (2 * n));
      g.win_ci95_lo.push_back(lo);
      g.win_ci95_hi.push_back(hi);
      g.win_probability_half.push_back(static_cast<double>(wins_half) / (2 * half));
    }
    if (g.indices) {
      std::vector<std::vector<double>> fab(static_cast<size_t>(k));
      for (int j = 0; j < k; ++j) {
        for (int i = 0; i < n; ++i) {
          std::vector<double> x = a_rows[static_cast<size_t>(i)];
          x[static_cast<size_t>(j)] = b_rows[static_cast<size_t>(i)][static_cast<size_t>(j)];
          auto e = at_row(x);
          if (!e.ok()) return e.error();
          fab[static_cast<size_t>(j)].push_back(diff(*e));
        }
      }
      g.sobol = sobol_indices(std::vector<double>(y.begin(), y.begin() + n),
                              std::vector<double>(y.begin() + n, y.end()), fab,
                              Stream(r.seed, 0, "sensitivity.bootstrap"));
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
  return std::isfinite(v) ? round_trip_text(v) : std::string();
}

// The decisive input: the largest total-effect index (what fixing the input would remove of the
// variance of d, interactions included), else the largest tornado swing.
int decisive_input(const SensitivityResult& r) {
  const auto& idx = r.global.sobol.index;
  if (r.global.indices && !idx.empty() && std::isfinite(idx[0].total.value)) {
    int best = 0;
    for (size_t j = 1; j < idx.size(); ++j) {
      if (idx[j].total.value > idx[static_cast<size_t>(best)].total.value) {
        best = static_cast<int>(j);
      }
    }
    return best;
  }
  return r.tornado.empty() ? 0 : r.tornado.front().input;
}

json estimate_json(const SobolEstimate& e) {
  return {{"value", num_or_null(e.value)},
          {"stderr", num_or_null(e.stderr_)},
          {"ci95_lo", num_or_null(e.ci95_lo)},
          {"ci95_hi", num_or_null(e.ci95_hi)}};
}

std::string index_text(const SobolEstimate& e) {
  if (!std::isfinite(e.value)) return fmt::format("{:>22}", "n/a");
  return fmt::format("{:+.3f} [{:+.3f}, {:+.3f}]", e.value, e.ci95_lo, e.ci95_hi);
}

// The verdict: the most probable winner over the sampled worlds and the decisive input, or the
// winner at the resolved values without a global analysis.
std::string verdict_line(const SensitivityResult& r) {
  const auto& g = r.global;
  const std::string& decisive_path = r.inputs[static_cast<size_t>(decisive_input(r))].path;
  if (g.win_probability.empty()) {
    return fmt::format("{} wins at the resolved values; largest swing: {}",
                       r.strategies[static_cast<size_t>(r.base.winner)], decisive_path);
  }
  size_t best = 0;
  for (size_t s = 1; s < g.win_probability.size(); ++s) {
    if (g.win_probability[s] > g.win_probability[best]) best = s;
  }
  return fmt::format("{} wins in {:.0f}% ({:.0f}-{:.0f}%) of {} sampled worlds; decisive input: {}",
                     r.strategies[best], 100 * g.win_probability[best], 100 * g.win_ci95_lo[best],
                     100 * g.win_ci95_hi[best], 2 * g.samples, decisive_path);
}

}  // namespace

nlohmann::ordered_json sensitivity_json(const SensitivityResult& r) {
  json j;
  j["kind"] = "sensitivity";
  const BuildInfo& build = build_info();
  j["context"] = {{"tool", "ntpsim"},
                  {"version", build.version},
                  {"git_sha", build.git_sha},
                  {"build_type", build.build_type}};
  j["verdict"] = verdict_line(r);
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
                      {"kind", quantity_kind_name(in.kind)},
                      {"low", in.lo},
                      {"high", in.hi},
                      {"resolved", in.base},
                      {"low_text", format_quantity(in.kind, in.lo)},
                      {"high_text", format_quantity(in.kind, in.hi)},
                      {"resolved_text", format_quantity(in.kind, in.base)},
                      {"distribution", describe_distribution(in)},
                      {"one_at_a_time", oat_rule(in)},
                      {"declared", in.declared},
                      {"source", in.source}});
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
         {"value_text", format_quantity(r.inputs[static_cast<size_t>(b.input)].kind, b.value)},
         {"resolution_text",
          format_quantity(r.inputs[static_cast<size_t>(b.input)].kind, b.resolution)},
         {"runner_up_leads", b.runner_up_below ? "below" : "above"},
         {"goodput_difference",
          {{"mean", b.diff_mean}, {"ci95_lo", b.diff_ci95_lo}, {"ci95_hi", b.diff_ci95_hi}}}});
  }
  j["break_even"] = std::move(be);
  const auto& g = r.global;
  json global;
  global["samples"] = g.samples;
  global["design"] =
      "two Latin hypercubes A and B of `samples` rows each, inverse-CDF sampled from each input's "
      "distribution; win probabilities over the 2N rows of A and B";
  json wins = json::array();
  for (size_t s = 0; s < g.win_probability.size(); ++s) {
    wins.push_back({{"strategy", r.strategies[s]},
                    {"probability", g.win_probability[s]},
                    {"ci95_lo", g.win_ci95_lo[s]},
                    {"ci95_hi", g.win_ci95_hi[s]},
                    {"probability_first_half", g.win_probability_half[s]}});
  }
  global["win_probability"] = std::move(wins);
  if (g.indices) {
    global["index_estimator"] =
        "Sobol' indices of goodput(leader) - goodput(runner_up) from the A, B and AB_i matrices "
        "(AB_i: A with column i from B): first order S_i = mean(f(B)(f(AB_i) - f(A))) / V "
        "(Saltelli 2010), total effect ST_i = mean((f(A) - f(AB_i))^2) / (2V) (Jansen 1999), V "
        "the variance over A and B; error: bootstrap over rows, standard error and 2.5%/97.5% "
        "percentiles";
    global["bootstrap_resamples"] = g.sobol.bootstrap;
    global["variance"] = g.sobol.variance;
    json idx = json::array();
    for (size_t i = 0; i < g.sobol.index.size(); ++i) {
      idx.push_back({{"input", r.inputs[i].path},
                     {"first_order", estimate_json(g.sobol.index[i].first_order)},
                     {"total", estimate_json(g.sobol.index[i].total)}});
    }
    global["importance"] = std::move(idx);
    json conv = json::array();
    for (const auto& c : g.sobol.convergence) {
      json per = json::array();
      for (size_t i = 0; i < c.first_order.size(); ++i) {
        per.push_back({{"input", r.inputs[i].path},
                       {"first_order", num_or_null(c.first_order[i])},
                       {"total", num_or_null(c.total[i])}});
      }
      conv.push_back({{"rows", c.rows}, {"indices", std::move(per)}});
    }
    global["convergence"] = std::move(conv);
  }
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
      out += fmt::format("{},{},{},{},{},{},{},{},{},{}\n", in.path, r.strategies[s],
                         round_trip_text(in.lo), round_trip_text(in.hi),
                         round_trip_text(row.low.strategies[s].goodput),
                         round_trip_text(row.high.strategies[s].goodput),
                         csv_num(row.low.strategies[s].time_to_train_days),
                         csv_num(row.high.strategies[s].time_to_train_days),
                         round_trip_text(row.swing), row.changes_winner ? 1 : 0);
    }
  }
  return out;
}

std::string sensitivity_summary(const SensitivityResult& r) {
  std::string out = verdict_line(r) + "\n";
  const auto& g = r.global;
  out += fmt::format("{} evaluations x {} replications, seed {}\n\n", r.evaluations, r.replications,
                     r.seed);
  out += "At the resolved values (mean goodput):\n";
  for (size_t s = 0; s < r.strategies.size(); ++s) {
    out += fmt::format("  {:<24} {:.4f}{}\n", r.strategies[s], r.base.strategies[s].goodput,
                       static_cast<int>(s) == r.base.winner ? "  <- wins" : "");
  }
  out += "\nInputs (one-at-a-time low .. high; distribution sampled; source):\n";
  for (const auto& in : r.inputs) {
    out += fmt::format("  {:<40} {} .. {} ({}); {}\n      source: {}\n", in.path,
                       format_quantity(in.kind, in.lo), format_quantity(in.kind, in.hi),
                       oat_rule(in), describe_distribution(in), in.source);
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
    out += fmt::format(
        "\nGlobal (2 x {} Latin hypercube rows A and B; first N/2 rows of each in brackets):\n",
        g.samples);
    for (size_t s = 0; s < r.strategies.size(); ++s) {
      out += fmt::format("  P(win) {:<24} {:5.1f}%  95% CI [{:.1f}, {:.1f}]%  ({:.1f}%)\n",
                         r.strategies[s], 100 * g.win_probability[s], 100 * g.win_ci95_lo[s],
                         100 * g.win_ci95_hi[s], 100 * g.win_probability_half[s]);
    }
    if (g.indices) {
      out += fmt::format(
          "  Sobol' indices of goodput({}) - goodput({}) (first order Saltelli 2010, total Jansen;"
          " bootstrap 95% CI of {} resamples):\n",
          lead, second, g.sobol.bootstrap);
      out += fmt::format("    {:<40} {:<22} {:<22} {}\n", "input", "first order", "total",
                         "convergence S/ST at");
      std::string rows_text;
      for (const auto& c : g.sobol.convergence) rows_text += fmt::format(" n={}", c.rows);
      for (size_t i = 0; i < g.sobol.index.size(); ++i) {
        std::string conv;
        for (const auto& c : g.sobol.convergence) {
          conv += fmt::format(" {:+.2f}/{:+.2f}", c.first_order[i], c.total[i]);
        }
        out += fmt::format("    {:<40} {:<22} {:<22}{}\n", r.inputs[i].path,
                           index_text(g.sobol.index[i].first_order),
                           index_text(g.sobol.index[i].total), conv);
      }
      out +=
          fmt::format("    (convergence at{} rows; Var d = {:.3g})\n", rows_text, g.sobol.variance);
    }
  }
  for (const auto& n : r.notes) out += fmt::format("note: {}\n", n);
  return out;
}

}  // namespace ntpsim::sim
