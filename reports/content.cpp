// Context, warnings and the per-strategy summary charts (goodput, badput, paired differences,
// distribution across replications). The over-time and sweep charts are in charts_time.cpp.
#include "reports/content.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include "reports/svg.h"

namespace ntpsim::reports {
namespace {

using svg::Frame;
using svg::Scale;

constexpr double kInfinity = std::numeric_limits<double>::infinity();

constexpr double kWideCiHalfWidth = 0.01;  // goodput CI half-width above 1 point is "wide"
constexpr int64_t kFewReplications = 30;

const MetricSummary* find_stat(const StrategyResult& s, const std::string& key) {
  auto it = s.summary.find(key);
  return it == s.summary.end() ? nullptr : &it->second;
}

double label_width(const Results& r) {
  size_t longest = 8;
  for (const auto& s : r.strategies) longest = std::max(longest, s.label.size());
  return std::min(220.0, 16.0 + 7.0 * static_cast<double>(longest));
}

bool is_fraction(const MetricColumn& m) {
  return m.unit == "fraction";
}

// A dot-and-whisker row chart: one row per item with a mean and a CI, optional zero line.
struct Row {
  std::string label;
  double mean;
  double lo;
  double hi;
  size_t colour;
  std::string value_text;
};

std::string dot_whisker(const std::string& id, const std::string& title,
                        const std::vector<Row>& rows, double left, const std::string& axis_label,
                        bool percent, bool zero_line) {
  const double row_h = 34.0;
  const double width = 860.0;
  const double value_w = 190.0;
  Frame f{left, 16.0, width - value_w, 16.0 + row_h * static_cast<double>(rows.size())};
  double lo = zero_line ? 0.0 : kInfinity;
  double hi = zero_line ? 0.0 : -kInfinity;
  for (const auto& row : rows) {
    for (double v : {row.lo, row.hi, row.mean}) {
      if (std::isfinite(v)) {
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
    }
  }
  if (!std::isfinite(lo)) {
    lo = 0.0;
    hi = 1.0;
  }
  const double pad = (hi - lo) * 0.08;
  // A percent axis of values within 0..100% is not padded past 100%.
  const double top = percent && !zero_line && hi <= 1.0 ? std::min(1.0, hi + pad) : hi + pad;
  const double bottom = percent && !zero_line && lo >= 0.0 ? std::max(0.0, lo - pad) : lo - pad;
  const auto ticks = svg::nice_ticks(bottom, top, 6);
  const Scale x{ticks.front(), ticks.back(), f.left, f.right};
  svg::Svg s(width, f.bottom + 46.0, id, title);
  svg::x_axis(s, f, x, ticks, axis_label, percent);
  if (zero_line && ticks.front() <= 0.0 && ticks.back() >= 0.0)
    s.line(x(0.0), f.top, x(0.0), f.bottom, "#222", 1.5, "4 3");
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& row = rows[i];
    const double cy = f.top + row_h * (static_cast<double>(i) + 0.5);
    const std::string& col = svg::colour(row.colour);
    s.text(f.left - 10, cy + 4, row.label, "end", 12, R"(fill="#222")");
    if (std::isfinite(row.lo) && std::isfinite(row.hi)) {
      s.line(x(row.lo), cy, x(row.hi), cy, col, 2.0);
      s.line(x(row.lo), cy - 7, x(row.lo), cy + 7, col, 2.0);
      s.line(x(row.hi), cy - 7, x(row.hi), cy + 7, col, 2.0);
    }
    if (std::isfinite(row.mean)) s.marker(row.colour, x(row.mean), cy, 5.5, col, row.value_text);
    s.text(f.right + 12, cy + 4, row.value_text, "start", 12, R"(fill="#222")");
  }
  return s.finish();
}

// "97.31 [97.02, 97.60]" in percent (fractions) or plain numbers.
std::string mean_ci(double mean, double lo, double hi, bool percent) {
  if (percent) return fmt::format("{} [{}, {}]", svg::pct(mean), svg::pct(lo), svg::pct(hi));
  return fmt::format("{} [{}, {}]", svg::num(mean), svg::num(lo), svg::num(hi));
}

}  // namespace

bool numeric_column(const Table& t, size_t col) {
  for (const auto& row : t.rows) {
    if (col >= row.size() || row[col].empty()) continue;
    const std::string& cell = row[col];
    const bool number = std::isdigit(static_cast<unsigned char>(cell[0])) ||
                        ((cell[0] == '-' || cell[0] == '+') && cell.size() > 1 &&
                         std::isdigit(static_cast<unsigned char>(cell[1]))) ||
                        cell == "–";
    if (!number) return false;
  }
  return true;
}

// By label (unique), else by name (documents without labels).
size_t strategy_index(const Results& r, const std::string& name) {
  for (size_t i = 0; i < r.strategies.size(); ++i) {
    if (r.strategies[i].label == name) return i;
  }
  for (size_t i = 0; i < r.strategies.size(); ++i) {
    if (r.strategies[i].name == name) return i;
  }
  return r.strategies.size();
}

std::string origin_text(const std::string& origin) {
  if (origin == "measured") return "measured (calibrated on real GPUs)";
  if (origin == "spec") return "spec-derived (not measured)";
  if (origin == "synthetic") return "synthetic (fitted to synthetic data, not measured)";
  if (origin == "mixed") return "mixed (partly measured, partly spec-derived)";
  return origin.empty() ? "unknown (not measured)" : origin + " (not measured)";
}

VerdictBox verdict_box(const Results& r) {
  VerdictBox box;
  if (!r.verdict) return box;
  const Verdict& v = *r.verdict;
  auto pts = [](double f) { return fmt::format("{}{}", f >= 0 ? "+" : "", svg::pct(f)); };
  const std::string where = v.point ? fmt::format(" at sweep point {}", *v.point) : std::string();
  if (v.runner_up.empty()) {
    box.headline = fmt::format("{} is the only strategy{}: goodput {}%", v.winner_label, where,
                               svg::pct(v.winner_mean));
  } else if (v.tied) {
    box.tied = true;
    box.headline = fmt::format(
        "Statistically tied{}: {} and {} (goodput difference {} pts, 95% CI [{}, {}] contains 0)",
        where, v.winner_label, v.runner_up_label, pts(v.margin_mean), pts(v.margin_ci95_lo),
        pts(v.margin_ci95_hi));
  } else {
    box.headline = fmt::format("{} wins{}: {} pts goodput over {} (95% CI [{}, {}])",
                               v.winner_label, where, pts(v.margin_mean), v.runner_up_label,
                               pts(v.margin_ci95_lo), pts(v.margin_ci95_hi));
  }
  box.rows.emplace_back("Winner's goodput",
                        std::isfinite(v.winner_ci95_lo)
                            ? fmt::format("{}% [{}, {}] (relative to the layout's ideal rate)",
                                          svg::pct(v.winner_mean), svg::pct(v.winner_ci95_lo),
                                          svg::pct(v.winner_ci95_hi))
                            : fmt::format("{}%", svg::pct(v.winner_mean)));
  box.rows.emplace_back("Absolute throughput",
                        std::isfinite(v.tokens_per_s_per_gpu)
                            ? fmt::format("{} tokens/s per GPU (job and spare GPUs)",
                                          svg::num(v.tokens_per_s_per_gpu, 4))
                            : "– (the ideal rate is not in the document)");
  if (std::isfinite(v.time_to_train_days))
    box.rows.emplace_back("Time to train", fmt::format("{} days", svg::num(v.time_to_train_days)));
  if (!v.runner_up.empty()) {
    box.rows.emplace_back(
        "Margin over the runner-up",
        fmt::format("{} pts, 95% CI [{}, {}], paired over {} replications on the same failures",
                    pts(v.margin_mean), pts(v.margin_ci95_lo), pts(v.margin_ci95_hi), v.margin_n));
  }
  if (!v.tied_with.empty()) {
    std::string names;
    for (const auto& label : v.tied_with_labels) names += (names.empty() ? "" : ", ") + label;
    box.rows.emplace_back("Statistically tied with the winner", names);
  }
  std::string setting;
  for (const auto& [k, val] : v.values)
    setting += fmt::format("{}{} = {}", setting.empty() ? "" : ", ", k, val);
  if (!v.setting.empty()) setting += (setting.empty() ? "" : "; ") + v.setting;
  if (!setting.empty()) box.rows.emplace_back("Setting", setting);
  box.rows.emplace_back("Step times", fmt::format("{} profile {}", r.context.hardware_profile,
                                                  origin_text(r.context.profile_origin)));
  return box;
}

std::vector<std::pair<std::string, std::string>> context_rows(const Results& r) {
  const Context& c = r.context;
  std::vector<std::pair<std::string, std::string>> rows;
  rows.emplace_back("Tool", fmt::format("{} {}", c.tool.empty() ? "ntpsim" : c.tool, c.version));
  rows.emplace_back("Git SHA", c.git_sha);
  rows.emplace_back("Build type", c.build_type);
  rows.emplace_back("Scenario", c.scenario_file.empty()
                                    ? c.scenario_name
                                    : fmt::format("{} ({})", c.scenario_name, c.scenario_file));
  rows.emplace_back("Scenario hash", c.scenario_hash);
  rows.emplace_back("Kind", r.kind);
  rows.emplace_back("Seed", fmt::format("{}", c.seed));
  rows.emplace_back("Replications", fmt::format("{}", c.replications));
  rows.emplace_back("Hardware profile",
                    fmt::format("{} — {}", c.hardware_profile, origin_text(c.profile_origin)));
  if (!c.step_model.empty()) rows.emplace_back("Step model", c.step_model);
  if (c.gpus > 0)
    rows.emplace_back("GPUs", c.job_gpus > 0 ? fmt::format("{} ({} in the job)", c.gpus, c.job_gpus)
                                             : fmt::format("{}", c.gpus));
  if (std::isfinite(c.checkpoint_interval_s) && c.checkpoint_interval_s > 0) {
    rows.emplace_back("Checkpoint interval",
                      fmt::format("{} s", svg::num(c.checkpoint_interval_s)));
  } else {
    // Each strategy's own (checkpoint.interval: auto per strategy); the horizon means that the
    // strategy is never rolled back and writes no checkpoint inside the run.
    std::string each;
    for (const auto& st : r.strategies) {
      if (!std::isfinite(st.checkpoint_interval_s) || st.checkpoint_interval_s <= 0) continue;
      each += fmt::format("{}{}: {}", each.empty() ? "" : "; ", st.label,
                          c.horizon_s > 0 && st.checkpoint_interval_s >= c.horizon_s
                              ? std::string("none (never rolled back)")
                              : fmt::format("{} s", svg::num(st.checkpoint_interval_s)));
    }
    if (!each.empty()) rows.emplace_back("Checkpoint interval per strategy", each);
  }
  // How each strategy gets going again after a failure (sim/strategies/README.md, "Resume
  // mechanisms"): the axis that decides most of the gap between restarting and in-place ones.
  std::string resumes;
  for (const auto& st : r.strategies) {
    if (st.resume.empty()) continue;
    resumes += fmt::format("{}{}: {}", resumes.empty() ? "" : "; ", st.label, st.resume);
  }
  if (!resumes.empty()) rows.emplace_back("Resume mechanism per strategy", resumes);
  if (!c.failures_during_pause.empty())
    rows.emplace_back("Failures during a recovery pause", c.failures_during_pause == "ignore"
                                                              ? "ignored (the pause runs on)"
                                                              : "restart the pause");
  if (std::isfinite(c.ideal_tokens_per_s) && c.ideal_tokens_per_s > 0)
    rows.emplace_back("Ideal job rate", fmt::format("{} tokens/s", svg::num(c.ideal_tokens_per_s)));
  if (c.horizon_s > 0)
    rows.emplace_back("Horizon", fmt::format("{} days", svg::num(c.horizon_s / 86400.0)));
  if (c.train_tokens > 0) rows.emplace_back("Token budget", svg::num(c.train_tokens));
  if (r.sweep) {
    std::string params;
    for (const auto& p : r.sweep->parameters) params += (params.empty() ? "" : ", ") + p;
    rows.emplace_back("Varied", fmt::format("{} ({} points)", params, r.sweep->points.size()));
  }
  if (!r.strategies.empty()) rows.emplace_back("Baseline", r.strategies.front().label);
  return rows;
}

std::vector<std::string> report_warnings(const Results& r) {
  std::vector<std::string> out = r.warnings;
  auto add = [&](std::string w) {
    if (std::find(out.begin(), out.end(), w) == out.end()) out.push_back(std::move(w));
  };
  const Context& c = r.context;
  const bool engine_warned_replications =
      std::any_of(out.begin(), out.end(),
                  [](const std::string& w) { return w.find("replications") != std::string::npos; });
  if (c.replications < kFewReplications && !engine_warned_replications)
    add(
        fmt::format("only {} replications: confidence intervals are wide and the distribution "
                    "is coarse (use at least {})",
                    c.replications, kFewReplications));
  for (const auto& s : r.strategies) {
    const MetricSummary* g = find_stat(s, "goodput");
    if (g == nullptr) continue;
    const double half = (g->ci95_hi - g->ci95_lo) / 2.0;
    if (half > kWideCiHalfWidth)
      add(fmt::format("wide CI: {} goodput is known only to ±{} points; run more replications",
                      s.label, svg::pct(half)));
  }
  if (c.build_type != "Release" && c.build_type != "RelWithDebInfo" && c.build_type != "MinSizeRel")
    add(fmt::format("{} build: fine for results, but not for timing numbers", c.build_type));
  if (c.git_sha.find("dirty") != std::string::npos)
    add("built from a modified source tree: the git SHA does not identify the code exactly");
  if (c.profile_origin != "measured")
    add(
        fmt::format("hardware profile '{}' is {}: step times, and so every absolute number here, "
                    "are not calibrated on real GPUs",
                    c.hardware_profile, origin_text(c.profile_origin)));
  return out;
}

Chart goodput_chart(const Results& r) {
  Chart ch;
  ch.id = "goodput";
  ch.title = "Goodput per strategy";
  ch.caption =
      "Mean goodput over the replications with its 95% confidence interval (whiskers). "
      "Goodput is committed useful work divided by elapsed time × the ideal rate.";
  ch.table.headers = {
      "Strategy", "Goodput (%)", "95% CI low", "95% CI high",         "SD (points)",
      "p5",       "p50",         "p95",        "Per-GPU goodput (%)", "Tokens/s per GPU",
      "n"};
  std::vector<Row> rows;
  for (size_t i = 0; i < r.strategies.size(); ++i) {
    const auto& s = r.strategies[i];
    const MetricSummary* g = find_stat(s, "goodput");
    if (g == nullptr) continue;
    rows.push_back({s.label, g->mean, g->ci95_lo, g->ci95_hi, i,
                    fmt::format("{}% [{}, {}]", svg::pct(g->mean), svg::pct(g->ci95_lo),
                                svg::pct(g->ci95_hi))});
    const MetricSummary* per_gpu = find_stat(s, "per_gpu_goodput");
    const MetricSummary* tokens = find_stat(s, "tokens_per_s_per_gpu");
    ch.table.rows.push_back(
        {s.label, svg::pct(g->mean), svg::pct(g->ci95_lo), svg::pct(g->ci95_hi), svg::pct(g->sd),
         svg::pct(g->p5), svg::pct(g->p50), svg::pct(g->p95),
         per_gpu ? svg::pct(per_gpu->mean) : std::string("–"),
         tokens && std::isfinite(tokens->mean) ? svg::num(tokens->mean, 4) : std::string("–"),
         fmt::format("{}", g->n)});
  }
  if (!rows.empty())
    ch.svg = dot_whisker(ch.id, ch.title, rows, label_width(r), "Goodput (%)", true, false);
  return ch;
}

Chart badput_chart(const Results& r) {
  Chart ch;
  ch.id = "badput";
  ch.title = "Where the time goes: badput breakdown";
  ch.caption =
      "Mean share of elapsed time lost to each cause (stacked). With goodput, the parts "
      "sum to 100%.";
  const auto& keys = badput_keys();
  ch.table.headers = {"Strategy"};
  for (const auto& k : keys) ch.table.headers.push_back(r.metric(k).label + " (%)");
  ch.table.headers.push_back("Total badput (%)");
  ch.table.headers.push_back("Goodput (%)");
  double max_total = 0.0;
  std::vector<std::vector<double>> parts;
  for (const auto& s : r.strategies) {
    std::vector<double> p;
    double total = 0.0;
    std::vector<std::string> row = {s.label};
    for (const auto& k : keys) {
      const MetricSummary* st = find_stat(s, k);
      const double v = st && std::isfinite(st->mean) ? std::max(0.0, st->mean) : 0.0;
      p.push_back(v);
      total += v;
      row.push_back(st ? svg::pct(st->mean) : "–");
    }
    const MetricSummary* g = find_stat(s, "goodput");
    row.push_back(svg::pct(total));
    row.push_back(g ? svg::pct(g->mean) : "–");
    if (g && std::fabs(g->mean + total - 1.0) > 0.005)
      ch.table.note += fmt::format("{}goodput and badput of {} sum to {}%, not 100%",
                                   ch.table.note.empty() ? "" : "; ", s.label,
                                   svg::pct(g->mean + total));
    max_total = std::max(max_total, total);
    parts.push_back(std::move(p));
    ch.table.rows.push_back(std::move(row));
  }
  if (r.strategies.empty()) return ch;
  const double width = 860.0;
  const double row_h = 30.0;
  std::vector<svg::LegendItem> legend;
  for (size_t k = 0; k < keys.size(); ++k)
    legend.push_back({r.metric(keys[k]).label, svg::colour(k)});
  const double legend_h = 40.0;
  Frame f{label_width(r), 12.0 + legend_h, width - 40.0,
          12.0 + legend_h + row_h * static_cast<double>(r.strategies.size())};
  const auto ticks = svg::nice_ticks(0.0, max_total > 0.0 ? max_total : 0.01, 6);
  const Scale x{0.0, ticks.back(), f.left, f.right};
  svg::Svg s(width, f.bottom + 46.0, ch.id, ch.title);
  svg::legend(s, f.left, 20.0, f.width(), legend);
  svg::x_axis(s, f, x, ticks, "Share of elapsed time lost (%)", true);
  for (size_t i = 0; i < r.strategies.size(); ++i) {
    const double y = f.top + row_h * static_cast<double>(i) + 5.0;
    s.text(f.left - 10, y + row_h / 2.0, r.strategies[i].label, "end", 12, R"(fill="#222")");
    double acc = 0.0;
    for (size_t k = 0; k < keys.size(); ++k) {
      const double v = parts[i][k];
      if (v <= 0.0) continue;
      s.raw(fmt::format(
          R"(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="{}" stroke="#fff" stroke-width="0.5"><title>{}: {} {}%</title></rect>)"
          "\n",
          x(acc), y, x(acc + v) - x(acc), row_h - 10.0, svg::colour(k),
          svg::escape(r.strategies[i].label), svg::escape(r.metric(keys[k]).label), svg::pct(v)));
      acc += v;
    }
  }
  ch.svg = s.finish();
  return ch;
}

Chart paired_chart(const Results& r) {
  Chart ch;
  ch.id = "paired";
  const std::string baseline = r.strategies.empty() ? "" : r.strategies.front().label;
  ch.title = "Paired differences against the baseline";
  ch.caption = fmt::format(
      "Per-replication difference strategy − {} on the same failure trajectory (common random "
      "numbers), mean and 95% CI. A whisker clear of the dashed zero line is a real difference.",
      baseline);
  ch.table.headers = {"Strategy",   "Baseline",    "Metric", "Mean difference",
                      "95% CI low", "95% CI high", "n"};
  std::vector<Row> rows;
  for (const auto& d : r.paired) {
    if (!r.strategies.empty() && strategy_index(r, d.baseline) != 0) continue;
    const MetricColumn m = r.metric(d.metric);
    const bool frac = is_fraction(m);
    auto v = [&](double x) {
      return frac             ? svg::pct(x) + " pts"
             : m.unit.empty() ? svg::num(x)
                              : svg::num(x) + " " + m.unit;
    };
    const size_t idx = strategy_index(r, d.strategy);
    const std::string label = idx < r.strategies.size() ? r.strategies[idx].label : d.strategy;
    const size_t base_idx = strategy_index(r, d.baseline);
    const std::string base_label =
        base_idx < r.strategies.size() ? r.strategies[base_idx].label : d.baseline;
    ch.table.rows.push_back({label, base_label, m.label, v(d.mean), v(d.ci95_lo), v(d.ci95_hi),
                             fmt::format("{}", d.n)});
    if (d.metric != "goodput") continue;
    rows.push_back({label, d.mean, d.ci95_lo, d.ci95_hi, idx,
                    fmt::format("{} pts [{}, {}]", svg::pct(d.mean), svg::pct(d.ci95_lo),
                                svg::pct(d.ci95_hi))});
  }
  if (!rows.empty())
    ch.svg = dot_whisker(ch.id, ch.title, rows, label_width(r),
                         fmt::format("Goodput difference vs {} (percentage points)", baseline),
                         true, true);
  return ch;
}

Chart distribution_chart(const Results& r) {
  Chart ch;
  ch.id = "distribution";
  // Time to train when the scenario has a token budget, else goodput.
  std::string key = "goodput";
  for (const auto& s : r.strategies) {
    if (s.summary.count("time_to_train_days")) key = "time_to_train_days";
  }
  const MetricColumn m = r.metric(key);
  const bool frac = key == "goodput" || is_fraction(m);
  const std::string unit = frac ? "%" : (key == "time_to_train_days" ? "days" : m.unit);
  ch.title = fmt::format("Distribution of {} across replications", m.label);
  ch.caption =
      "Each dot is one replication (spread vertically only for visibility); the box "
      "spans p5–p95 and the bar inside it is the median.";
  ch.table.headers = {"Strategy", "n", "min", "p5", "p50", "p95", "max", "mean", "SD"};
  for (auto& h : ch.table.headers) {
    if (h != "Strategy" && h != "n") h += fmt::format(" ({})", unit);
  }
  auto fmtv = [&](double v) { return frac ? svg::pct(v) : svg::num(v); };
  double lo = kInfinity;
  double hi = -kInfinity;
  for (const auto& s : r.strategies) {
    const MetricSummary* st = find_stat(s, key);
    if (st == nullptr) continue;
    ch.table.rows.push_back({s.label, fmt::format("{}", st->n), fmtv(st->min), fmtv(st->p5),
                             fmtv(st->p50), fmtv(st->p95), fmtv(st->max), fmtv(st->mean),
                             fmtv(st->sd)});
    for (const auto& rep : s.replications) {
      auto it = rep.find(key);
      if (it != rep.end() && std::isfinite(it->second)) {
        lo = std::min(lo, it->second);
        hi = std::max(hi, it->second);
      }
    }
    for (double v : {st->p5, st->p95}) {
      if (std::isfinite(v)) {
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
    }
  }
  if (ch.table.rows.empty() || !std::isfinite(lo)) return ch;
  const double width = 860.0;
  const double row_h = 44.0;
  Frame f{label_width(r), 12.0, width - 40.0,
          12.0 + row_h * static_cast<double>(r.strategies.size())};
  const double pad = (hi - lo) * 0.05;
  const auto ticks = svg::nice_ticks(lo - pad, hi + pad, 6);
  const Scale x{ticks.front(), ticks.back(), f.left, f.right};
  svg::Svg s(width, f.bottom + 46.0, ch.id, ch.title);
  svg::x_axis(s, f, x, ticks, fmt::format("{} ({})", m.label, unit), frac);
  constexpr size_t kMaxDots = 2000;  // beyond this, every k-th replication is drawn
  for (size_t i = 0; i < r.strategies.size(); ++i) {
    const auto& st = r.strategies[i];
    const MetricSummary* stat = find_stat(st, key);
    if (stat == nullptr) continue;
    const double cy = f.top + row_h * (static_cast<double>(i) + 0.5);
    const std::string& col = svg::colour(i);
    s.text(f.left - 10, cy + 4, st.label, "end", 12, R"(fill="#222")");
    if (std::isfinite(stat->p5) && std::isfinite(stat->p95)) {
      s.rect(x(stat->p5), cy - 13, x(stat->p95) - x(stat->p5), 26, col,
             R"(fill-opacity="0.15" stroke-width="1" stroke=")" + col + "\"");
    }
    if (std::isfinite(stat->p50)) s.line(x(stat->p50), cy - 13, x(stat->p50), cy + 13, col, 3.0);
    const size_t n = st.replications.size();
    const size_t stride = n > kMaxDots ? (n + kMaxDots - 1) / kMaxDots : 1;
    for (size_t k = 0; k < n; k += stride) {
      auto it = st.replications[k].find(key);
      if (it == st.replications[k].end() || !std::isfinite(it->second)) continue;
      // Deterministic low-discrepancy jitter (golden-ratio sequence), not randomness.
      const double frac_part = std::fmod(static_cast<double>(k) * 0.6180339887498949, 1.0);
      s.circle(x(it->second), cy + (frac_part - 0.5) * 22.0, 2.2, col, R"(fill-opacity="0.55")");
    }
    if (stride > 1) ch.table.note = fmt::format("chart shows every {}th replication", stride);
  }
  ch.svg = s.finish();
  return ch;
}

Table all_pairs_table(const Results& r) {
  Table t;
  t.headers = {"Strategy", "minus", "Goodput difference (pts)", "95% CI low", "95% CI high",
               "Verdict",  "n"};
  auto label = [&](const std::string& name) {
    const size_t i = strategy_index(r, name);
    return i < r.strategies.size() ? r.strategies[i].label : name;
  };
  for (const auto& d : r.paired) {
    if (d.metric != "goodput") continue;
    const bool tied = d.n < 2 || !(d.ci95_lo > 0.0 || d.ci95_hi < 0.0);
    t.rows.push_back({label(d.strategy), label(d.baseline), svg::pct(d.mean), svg::pct(d.ci95_lo),
                      svg::pct(d.ci95_hi),
                      tied ? "statistically tied"
                           : (d.mean > 0 ? label(d.strategy) : label(d.baseline)) + " better",
                      fmt::format("{}", d.n)});
  }
  t.note =
      "every pair, per-replication differences on common random numbers; \"statistically "
      "tied\" when the 95% CI contains 0";
  return t;
}

Table metrics_table(const Results& r) {
  Table t;
  t.headers = {"Metric", "Unit"};
  for (const auto& s : r.strategies) t.headers.push_back(s.label);
  for (const auto& m : r.metrics) {
    const bool frac = is_fraction(m);
    std::vector<std::string> row = {m.label, frac ? "%" : m.unit};
    bool any = false;
    for (const auto& s : r.strategies) {
      const MetricSummary* st = find_stat(s, m.key);
      any = any || st != nullptr;
      row.push_back(st ? mean_ci(st->mean, st->ci95_lo, st->ci95_hi, frac) : "–");
    }
    if (any) t.rows.push_back(std::move(row));
  }
  t.note = "mean [95% confidence interval] over the replications";
  return t;
}

std::vector<Chart> build_charts(const Results& r) {
  std::vector<Chart> out;
  if (r.sweep) {
    // A sweep: the curve (one parameter) or the heatmaps (two) lead, then goodput and badput at
    // each strategy's best point, labelled with that point.
    if (Chart c = sweep_chart(r); !c.svg.empty()) out.push_back(std::move(c));
    for (Chart& c : sweep_heatmaps(r)) out.push_back(std::move(c));
    const Results best = best_point_results(r);
    for (Chart c : {goodput_chart(best), badput_chart(best)}) {
      if (c.svg.empty()) continue;
      c.title += " at each strategy's best sweep point";
      out.push_back(std::move(c));
    }
    return out;
  }
  for (Chart c : {goodput_chart(r), badput_chart(r), paired_chart(r), timeline_chart(r),
                  distribution_chart(r)}) {
    if (!c.svg.empty()) out.push_back(std::move(c));
  }
  return out;
}

Page results_page(const Results& r) {
  const Context& c = r.context;
  Page page;
  page.title = fmt::format("Goodput report: {}", c.scenario_name);
  page.subtitle =
      fmt::format("{} of {} strateg{} · {} replications · seed {} · scenario {}",
                  r.kind == "sweep" ? "Sweep" : "Run", r.strategies.size(),
                  r.strategies.size() == 1 ? "y" : "ies", c.replications, c.seed, c.scenario_hash);
  page.generator = fmt::format("ntpsim {} ({})", c.version, c.git_sha);
  page.verdict = verdict_box(r);
  page.context = context_rows(r);
  page.warnings = report_warnings(r);
  page.charts = build_charts(r);
  const Results details = best_point_results(r);  // r itself for a run
  if (Table pairs = all_pairs_table(details); !pairs.rows.empty()) {
    page.sections.push_back(
        {"pairs",
         fmt::format("Every pair of strategies{}", r.sweep ? " at the sweep verdict's point" : ""),
         std::move(pairs)});
  }
  page.sections.push_back(
      {"metrics",
       fmt::format("All metrics{}", r.sweep ? " at each strategy's best sweep point" : ""),
       metrics_table(details)});
  if (!r.scenario.is_null()) {
    page.source_id = "scenario";
    page.source_summary = "Resolved scenario (as `ntpsim check --json` prints it)";
    page.source_json = r.scenario.dump(2);
  }
  page.footer = fmt::format(
      "Generated by ntpsim {} (git {}, {} build) from an {} document. Colours: Okabe–Ito "
      "palette; every chart's numbers are in the table beneath it.",
      c.version, c.git_sha, c.build_type, r.schema);
  return page;
}

}  // namespace ntpsim::reports
