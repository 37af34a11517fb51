// The charts with a continuous x axis: replication 0 over time, and goodput along a sweep.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <string_view>

#include "reports/content.h"
#include "reports/report.h"
#include "reports/svg.h"

namespace ntpsim::reports {
namespace {

using svg::Frame;
using svg::Scale;

constexpr double kInf = std::numeric_limits<double>::infinity();

// (time, value) change points of a step function, and where it ends.
struct Step {
  std::vector<std::pair<double, double>> changes;
  double end = 0.0;
};

// Polyline points of a step function, mapped through the scales; repeated values are merged.
void draw_step(svg::Svg& s, const Step& f, const Scale& x, const Scale& y, const std::string& col,
               size_t dash_index) {
  if (f.changes.empty()) return;
  std::vector<double> xs;
  std::vector<double> ys;
  double current = f.changes.front().second;
  xs.push_back(x(f.changes.front().first));
  ys.push_back(y(current));
  for (size_t i = 1; i < f.changes.size(); ++i) {
    const auto& [t, v] = f.changes[i];
    if (v == current) continue;
    xs.push_back(x(t));
    ys.push_back(y(current));
    xs.push_back(x(t));
    ys.push_back(y(v));
    current = v;
  }
  xs.push_back(x(f.end));
  ys.push_back(y(current));
  s.polyline(xs, ys, col, 1.8, svg::dash(dash_index));
}

double step_max(const Step& f) {
  double m = 0.0;
  for (const auto& c : f.changes) m = std::max(m, c.second);
  return m;
}

// Failed GPUs over time from the failure list (each failure holds its GPUs until end_s).
Step failed_gpus_step(const Timeline& tl, double horizon) {
  std::map<double, double> delta;
  for (const auto& f : tl.failures) {
    delta[f.t_s] += static_cast<double>(f.gpus);
    if (f.end_s < horizon) delta[f.end_s] -= static_cast<double>(f.gpus);
  }
  Step s;
  s.end = horizon;
  s.changes.emplace_back(0.0, 0.0);
  double level = 0.0;
  for (const auto& [t, d] : delta) {
    level += d;
    s.changes.emplace_back(t, std::max(0.0, level));
  }
  return s;
}

Step segment_step(const TimelineTrack& st, double (*value)(const JobSegment&)) {
  Step s;
  for (const auto& g : st.segments) s.changes.emplace_back(g.t_s, value(g));
  s.end = st.segments.empty() ? 0.0 : st.segments.back().end_s;
  return s;
}

// A segment value as the time-weighted mean over `bins` equal bins of [0, horizon]: when a job
// has far more segments than the chart has pixels (short checkpoint stalls every hour of a
// month), the exact step line becomes a solid block; the binned mean shows what was achieved.
Step binned(const TimelineTrack& st, double (*value)(const JobSegment&), double horizon, int bins) {
  Step out;
  // The line stops where the recording stops: nothing is drawn past the last segment.
  out.end = std::min(horizon, st.segments.empty() ? 0.0 : st.segments.back().end_s);
  const double width = horizon / bins;
  std::vector<double> work(static_cast<size_t>(bins), 0.0), time(static_cast<size_t>(bins), 0.0);
  for (const auto& g : st.segments) {
    const auto first = static_cast<size_t>(std::clamp(std::floor(g.t_s / width), 0.0, bins - 1.0));
    for (size_t b = first; b < work.size(); ++b) {
      const double lo = std::max(g.t_s, static_cast<double>(b) * width);
      const double hi = std::min(g.end_s, static_cast<double>(b + 1) * width);
      if (hi <= lo) break;
      work[b] += (hi - lo) * value(g);
      time[b] += hi - lo;
    }
  }
  for (size_t b = 0; b < work.size(); ++b) {
    if (time[b] > 0) out.changes.emplace_back(static_cast<double>(b) * width, work[b] / time[b]);
  }
  return out;
}

struct MarkStyle {
  const char* type;
  const char* legend;
  size_t shape;
};
constexpr MarkStyle kMarkStyles[] = {
    {"failure", "failure", 4},       {"repair", "repair", 1},
    {"checkpoint", "checkpoint", 0}, {"reconfigure", "reconfiguration", 3},
    {"restart", "restart", 2},       {"rollback", "rollback", 5}};

size_t mark_shape(const std::string& type) {
  for (const auto& m : kMarkStyles) {
    if (type == m.type) return m.shape;
  }
  return 0;
}

std::string strategy_label(const Results& r, const std::string& name) {
  const size_t i = strategy_index(r, name);
  return i < r.strategies.size() ? r.strategies[i].label : name;
}

}  // namespace

Chart timeline_chart(const Results& r) {
  Chart ch;
  ch.id = "timeline";
  if (!r.timeline || r.timeline->strategies.empty()) return ch;
  const Timeline& tl = *r.timeline;
  double horizon = tl.horizon_s;
  for (const auto& st : tl.strategies) {
    if (!st.segments.empty()) horizon = std::max(horizon, st.segments.back().end_s);
  }
  if (!(horizon > 0.0)) return ch;
  const double unit_s = horizon >= 2 * 86400.0 ? 86400.0 : horizon >= 7200.0 ? 3600.0 : 60.0;
  const char* unit_name = unit_s == 86400.0 ? "days" : unit_s == 3600.0 ? "hours" : "minutes";
  ch.title = fmt::format("Replication {} over time", tl.replication);
  ch.caption =
      "Failed GPUs in the cluster, GPUs each strategy could use, and each job's "
      "throughput relative to the ideal rate; the rows below mark failures, repairs, "
      "checkpoints and reconfigurations per strategy.";

  const double width = 900.0;
  size_t longest = 0;
  for (const auto& st : tl.strategies)
    longest = std::max(longest, strategy_label(r, st.strategy).size());
  const double left = std::max(86.0, 20.0 + 6.5 * static_cast<double>(longest));
  const double right = width - 24.0;
  std::vector<svg::LegendItem> legend;
  for (size_t i = 0; i < tl.strategies.size(); ++i) {
    const size_t idx = strategy_index(r, tl.strategies[i].strategy);
    legend.push_back({strategy_label(r, tl.strategies[i].strategy), svg::colour(idx),
                      svg::LegendItem::Kind::kLine, i});
  }
  const double panel_h = 100.0;
  const double gap = 26.0;
  const double mark_row = 20.0;
  const double top = 44.0;
  const Frame a{left, top, right, top + panel_h};
  const Frame b{left, a.bottom + gap, right, a.bottom + gap + panel_h};
  const Frame c{left, b.bottom + gap, right, b.bottom + gap + panel_h};
  const Frame marks{left, c.bottom + gap, right,
                    c.bottom + gap + mark_row * static_cast<double>(tl.strategies.size())};
  const Frame all{left, a.top, right, marks.bottom};
  const auto xticks = svg::nice_ticks(0.0, horizon / unit_s, 8);
  const Scale x{0.0, xticks.back() * unit_s, left, right};

  svg::Svg s(width, marks.bottom + 72.0, ch.id, ch.title);
  svg::legend(s, left, 18.0, right - left, legend);
  svg::x_axis(s, all, Scale{0.0, xticks.back(), left, right}, xticks,
              fmt::format("Time ({})", unit_name));

  const Step failed = failed_gpus_step(tl, horizon);
  const auto fticks = svg::nice_ticks(0.0, std::max(1.0, step_max(failed)), 3);
  const Scale fy{0.0, fticks.back(), a.bottom, a.top};
  svg::y_axis(s, a, fy, fticks, "Failed GPUs");
  draw_step(s, failed, x, fy, "#D55E00", 0);

  double usable_lo = kInf;
  double usable_hi = 0.0;
  double thr_hi = 1.0;
  for (const auto& st : tl.strategies) {
    for (const auto& g : st.segments) {
      usable_lo = std::min(usable_lo, static_cast<double>(g.usable_gpus));
      usable_hi = std::max(usable_hi, static_cast<double>(g.usable_gpus));
      thr_hi = std::max(thr_hi, g.throughput);
    }
  }
  if (!std::isfinite(usable_lo)) usable_lo = 0.0;
  const auto uticks = svg::nice_ticks(
      std::max(0.0, usable_lo - (usable_hi - usable_lo) * 0.1 - 1.0), usable_hi + 1.0, 3);
  const Scale uy{uticks.front(), uticks.back(), b.bottom, b.top};
  svg::y_axis(s, b, uy, uticks, "Usable GPUs");
  const auto tticks = svg::nice_ticks(0.0, thr_hi, 4);
  const Scale ty{0.0, tticks.back(), c.bottom, c.top};
  svg::y_axis(s, c, ty, tticks, "Throughput (%)", true);

  // Where the earliest capped recording stops: from there on, the chart shows a hatched
  // "not recorded" region instead of any line.
  double cut = kInf;
  for (const auto& st : tl.strategies) {
    if (st.truncated) cut = std::min(cut, st.recorded_until_s);
  }
  if (std::isfinite(cut) && cut < horizon) {
    s.raw(fmt::format(
        R"(<rect class="not-recorded" x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="#d9d9d9" fill-opacity="0.6" stroke="#999" stroke-dasharray="4 3"><title>not recorded after {} {}</title></rect>)"
        "\n",
        x(cut), all.top, x(horizon) - x(cut), all.bottom - all.top, svg::num(cut / unit_s),
        unit_name));
    s.text((x(cut) + x(horizon)) / 2.0, a.top + 16.0,
           fmt::format("not recorded after {} {}", unit_s == 86400.0 ? "day" : unit_name,
                       svg::num(cut / unit_s)),
           "middle", 12, R"(fill="#333" font-weight="600")");
  }

  ch.table.headers = {"Strategy", "Recorded until", "Mean throughput (%)", "Min usable GPUs",
                      "Peak failed GPUs"};
  for (const char* state : {"running", "checkpointing", "recovering", "stalled", "degraded"})
    ch.table.headers.push_back(fmt::format("Time {} (%)", state));
  for (const auto& m : kMarkStyles) ch.table.headers.push_back(fmt::format("{}s", m.legend));

  constexpr size_t kMaxTooltips = 300;  // marks per strategy row that still get a tooltip
  constexpr int kBins = 300;            // throughput bins when the segments are too dense to draw
  size_t most_segments = 0;
  for (const auto& st : tl.strategies) most_segments = std::max(most_segments, st.segments.size());
  const bool dense = most_segments > static_cast<size_t>(kBins);
  if (dense) {
    ch.caption += fmt::format(
        " Usable GPUs and throughput are averaged over bins of {} {}s, and checkpoints are not "
        "marked (too many changes to draw one by one).",
        svg::num(horizon / kBins / (unit_s == 86400.0 ? 3600.0 : 60.0), 3),
        unit_s == 86400.0 ? "hour" : "minute");
  }
  for (size_t i = 0; i < tl.strategies.size(); ++i) {
    const TimelineTrack& st = tl.strategies[i];
    const size_t idx = strategy_index(r, st.strategy);
    const std::string& col = svg::colour(idx);
    auto usable = [](const JobSegment& g) { return static_cast<double>(g.usable_gpus); };
    auto throughput = [](const JobSegment& g) { return g.throughput; };
    draw_step(s, dense ? binned(st, usable, horizon, kBins) : segment_step(st, usable), x, uy, col,
              i);
    draw_step(s, dense ? binned(st, throughput, horizon, kBins) : segment_step(st, throughput), x,
              ty, col, i);
    const double cy = marks.top + mark_row * (static_cast<double>(i) + 0.5);
    s.line(left, cy, right, cy, "#eee");
    s.text(left - 8, cy + 4, strategy_label(r, st.strategy), "end", 11, R"(fill="#222")");
    // One marker per type per 2 px (3 when dense): marks closer than that would overprint anyway,
    // and a month of hourly checkpoints would otherwise put thousands of elements in the page.
    // Tooltips only on sparse rows, for the same reason.
    const bool tooltips = st.marks.size() <= kMaxTooltips;
    std::map<std::string, double> last_px;
    for (const JobMark& m : st.marks) {
      if (dense && m.type == "checkpoint") continue;
      const double px = x(m.t_s);
      auto [it, fresh] = last_px.try_emplace(m.type, px);
      if (!fresh && std::fabs(px - it->second) < (dense ? 3.0 : 2.0)) continue;
      it->second = px;
      s.marker(mark_shape(m.type), px, cy,
               m.type == "checkpoint" ? 2.5
               : dense                ? 3.5
                                      : 4.5,
               col,
               tooltips ? fmt::format("{} at {} {}", m.type, svg::num(m.t_s / unit_s), unit_name)
                        : std::string());
    }
    // The table: time-weighted means and counts over the recorded part of this replication.
    // Checkpoint pauses are not segments (they are too many to record one by one): their share
    // of the time is the replication's own badput_checkpoint, and it is taken out of the
    // running time that contains them. Without that value (an older document) it shows "–".
    double elapsed = 0.0, work = 0.0, min_usable = kInf, peak_failed = 0.0;
    std::map<std::string, double> state_time;
    for (const auto& g : st.segments) {
      const double d = g.end_s - g.t_s;
      elapsed += d;
      work += d * g.throughput;
      state_time[g.state] += d;
      min_usable = std::min(min_usable, static_cast<double>(g.usable_gpus));
      peak_failed = std::max(peak_failed, static_cast<double>(g.failed_gpus));
    }
    double ckpt_share = std::nan("");
    const size_t si = strategy_index(r, st.strategy);
    const auto rep = static_cast<size_t>(std::max<int64_t>(0, tl.replication));
    if (!st.truncated && si < r.strategies.size() && rep < r.strategies[si].replications.size()) {
      const auto& values = r.strategies[si].replications[rep];
      auto it = values.find("badput_checkpoint");
      if (it != values.end()) ckpt_share = it->second;
    }
    std::vector<std::string> row = {
        strategy_label(r, st.strategy),
        st.truncated
            ? fmt::format("{} {} (size cap)", svg::num(st.recorded_until_s / unit_s), unit_name)
            : "end",
        elapsed > 0 ? svg::pct(work / elapsed) : "–", svg::num(min_usable), svg::num(peak_failed)};
    for (const char* state : {"running", "checkpointing", "recovering", "stalled", "degraded"}) {
      double share = elapsed > 0 ? state_time[state] / elapsed : std::nan("");
      if (std::string_view(state) == "checkpointing") share = ckpt_share;
      if (std::string_view(state) == "running" && std::isfinite(ckpt_share))
        share = std::max(0.0, share - ckpt_share);
      row.push_back(std::isfinite(share) ? svg::pct(share) : "–");
    }
    for (const auto& m : kMarkStyles) {
      row.push_back(
          fmt::format("{}", std::count_if(st.marks.begin(), st.marks.end(),
                                          [&](const JobMark& j) { return j.type == m.type; })));
    }
    ch.table.rows.push_back(std::move(row));
  }
  std::vector<svg::LegendItem> mark_legend;
  for (const auto& m : kMarkStyles)
    mark_legend.push_back({m.legend, "#444", svg::LegendItem::Kind::kMarker, m.shape});
  svg::legend(s, left, marks.bottom + 58.0, right - left, mark_legend);
  std::string truncated;
  for (const auto& st : tl.strategies) {
    if (st.truncated)
      truncated +=
          fmt::format("{}{}", truncated.empty() ? "" : ", ", strategy_label(r, st.strategy));
  }
  int64_t failed_total = 0;
  for (const auto& f : tl.failures) failed_total += f.gpus;
  ch.table.note = fmt::format(
      "{} failures taking {} GPUs in {} {} of replication {}; every segment and event is in the "
      "results JSON and the Perfetto timeline",
      tl.failures.size(), failed_total, svg::num(horizon / unit_s), unit_name, tl.replication);
  if (!truncated.empty())
    ch.table.note += fmt::format(
        "; the recorded timeline of {} stops early (size cap): its row covers the recorded part "
        "only, and nothing is drawn after the cap",
        truncated);
  ch.table.note +=
      "; checkpoint time is the replication's badput_checkpoint (pauses are not recorded as "
      "segments), taken out of the running time";
  ch.svg = s.finish();
  return ch;
}

Chart sweep_chart(const Results& r) {
  Chart ch;
  ch.id = "sweep";
  if (!r.sweep || r.sweep->points.empty()) return ch;
  const Sweep& sw = *r.sweep;
  std::string param_label;
  for (const auto& p : sw.parameters) param_label += (param_label.empty() ? "" : ", ") + p;
  ch.title = fmt::format("Goodput against {}", param_label);
  ch.caption =
      "Mean goodput at each sweep point, one line per strategy, with its 95% "
      "confidence band.";

  // Two varied parameters are drawn as heatmaps (sweep_heatmaps), not as a line over a
  // flattened axis.
  if (sw.parameters.size() != 1) return ch;
  // Numeric x when every value is a number with the same unit.
  const size_t n = sw.points.size();
  std::vector<double> xv(n);
  bool numeric = true;
  std::string suffix;
  for (size_t i = 0; i < n && numeric; ++i) {
    const SweepValue v = split_sweep_value(sw.points[i].values.at(sw.parameters[0]));
    numeric = v.numeric;
    xv[i] = v.value;
    if (i == 0) suffix = v.unit;
    numeric = numeric && v.unit == suffix;
  }
  double xmin = kInf, xmax = -kInf;
  for (size_t i = 0; i < n; ++i) {
    if (!numeric) xv[i] = static_cast<double>(i);
    xmin = std::min(xmin, xv[i]);
    xmax = std::max(xmax, xv[i]);
  }
  const bool log_x = numeric && xmin > 0.0 && xmax / xmin >= 20.0;
  auto xt = [&](double v) { return log_x ? std::log10(v) : v; };

  // Strategies in the order of the first point.
  std::vector<std::pair<std::string, std::string>> names;  // name, label
  for (const auto& s : sw.points.front().strategies) names.emplace_back(s.name, s.label);
  ch.table.headers = sw.parameters;
  for (const auto& [name, label] : names)
    ch.table.headers.push_back(label + " goodput (%) [95% CI]");
  double ylo = kInf, yhi = -kInf;
  for (const auto& p : sw.points) {
    std::vector<std::string> row;
    for (const auto& param : sw.parameters) row.push_back(p.values.at(param));
    for (const auto& [name, label] : names) {
      std::string cell = "–";
      for (const auto& s : p.strategies) {
        auto it = s.summary.find("goodput");
        if (s.name != name || it == s.summary.end()) continue;
        const MetricSummary& g = it->second;
        cell =
            fmt::format("{} [{}, {}]", svg::pct(g.mean), svg::pct(g.ci95_lo), svg::pct(g.ci95_hi));
        for (double v : {g.ci95_lo, g.ci95_hi, g.mean}) {
          if (std::isfinite(v)) {
            ylo = std::min(ylo, v);
            yhi = std::max(yhi, v);
          }
        }
      }
      row.push_back(cell);
    }
    ch.table.rows.push_back(std::move(row));
  }
  if (!std::isfinite(ylo)) return ch;

  const double width = 860.0;
  std::vector<svg::LegendItem> legend;
  for (size_t i = 0; i < names.size(); ++i) {
    legend.push_back({names[i].second, svg::colour(strategy_index(r, names[i].first)),
                      svg::LegendItem::Kind::kLine, i});
  }
  const Frame f{86.0, 48.0, width - 30.0, 48.0 + 300.0};
  svg::Svg s(width, f.bottom + 56.0, ch.id, ch.title);
  svg::legend(s, f.left, 20.0, f.width(), legend);
  const double ypad = (yhi - ylo) * 0.08;
  // Goodput cannot exceed 100%: do not pad the axis past it.
  const auto yticks =
      svg::nice_ticks(ylo - ypad, yhi <= 1.0 ? std::min(1.0, yhi + ypad) : yhi + ypad, 6);
  const Scale y{yticks.front(), yticks.back(), f.bottom, f.top};
  svg::y_axis(s, f, y, yticks, "Goodput (%)", true);
  const std::string xlabel = param_label +
                             (numeric && !suffix.empty() ? fmt::format(" ({})", suffix) : "") +
                             (log_x ? ", log scale" : "");
  Scale x{xt(xmin), xt(xmax), f.left + 20.0, f.right - 20.0};
  if (numeric && !log_x) {
    const auto xticks = svg::nice_ticks(xmin, xmax, 7);
    x = Scale{xticks.front(), xticks.back(), f.left, f.right};
    svg::x_axis(s, f, x, xticks, xlabel);
  } else {
    // Ticks at the points, labelled as the values were written.
    for (size_t i = 0; i < n; ++i) {
      const double px = x(xt(xv[i]));
      s.line(px, f.top, px, f.bottom, "#e3e3e3");
      std::string label;
      for (const auto& param : sw.parameters)
        label += (label.empty() ? "" : ", ") + sw.points[i].values.at(param);
      s.text(px, f.bottom + 18, label, "middle", 11, R"(fill="#333")");
    }
    s.line(f.left, f.bottom, f.right, f.bottom, "#555");
    s.text((f.left + f.right) / 2.0, f.bottom + 38, xlabel, "middle", 12, R"(fill="#222")");
  }
  // Lines run left to right whatever order the points were swept in.
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return xv[a] < xv[b]; });
  for (size_t k = 0; k < names.size(); ++k) {
    const std::string& col = svg::colour(strategy_index(r, names[k].first));
    std::vector<double> xs, ym, band_x, band_lo, band_hi;
    for (size_t i : order) {
      for (const auto& st : sw.points[i].strategies) {
        auto it = st.summary.find("goodput");
        if (st.name != names[k].first || it == st.summary.end()) continue;
        const double px = x(xt(xv[i]));
        xs.push_back(px);
        ym.push_back(y(it->second.mean));
        band_x.push_back(px);
        band_lo.push_back(y(it->second.ci95_lo));
        band_hi.push_back(y(it->second.ci95_hi));
      }
    }
    std::vector<double> px = band_x, py = band_hi;
    for (size_t i = band_x.size(); i-- > 0;) {
      px.push_back(band_x[i]);
      py.push_back(band_lo[i]);
    }
    s.polygon(px, py, col, 0.18);
    s.polyline(xs, ym, col, 2.2, svg::dash(k));
    for (size_t i = 0; i < xs.size(); ++i) s.marker(k, xs[i], ym[i], 4.0, col);
  }
  ch.svg = s.finish();
  return ch;
}

namespace {

// Distinct values of one parameter in sweep order (the sweep varies the first parameter slowest).
std::vector<std::string> distinct_values(const Sweep& sw, const std::string& param) {
  std::vector<std::string> out;
  for (const auto& p : sw.points) {
    const std::string& v = p.values.at(param);
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  }
  return out;
}

const MetricSummary* goodput_of(const SweepPoint& p, const std::string& strategy) {
  for (const auto& s : p.strategies) {
    if (s.name != strategy) continue;
    auto it = s.summary.find("goodput");
    return it == s.summary.end() ? nullptr : &it->second;
  }
  return nullptr;
}

// A colour-blind-safe sequential scale (viridis stops), t in [0, 1].
std::string sequential(double t) {
  static constexpr double kStops[][3] = {
      {68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
  t = std::clamp(std::isfinite(t) ? t : 0.0, 0.0, 1.0) * 4.0;
  const int i = std::min(3, static_cast<int>(t));
  const double f = t - i;
  auto mix = [&](int c) { return kStops[i][c] + (kStops[i + 1][c] - kStops[i][c]) * f; };
  return fmt::format("#{:02x}{:02x}{:02x}", static_cast<int>(std::lround(mix(0))),
                     static_cast<int>(std::lround(mix(1))), static_cast<int>(std::lround(mix(2))));
}

std::string chart_id(const std::string& name, std::vector<std::string>& used) {
  std::string id = "heatmap-";
  for (char c : name)
    id += (c >= 'a' && c <= 'z') ? c : (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : '-';
  std::string unique = id;
  for (char extra = 'b'; std::find(used.begin(), used.end(), unique) != used.end(); ++extra)
    unique = id + "-" + extra;
  used.push_back(unique);
  return unique;
}

}  // namespace

std::vector<Chart> sweep_heatmaps(const Results& r) {
  std::vector<Chart> out;
  if (!r.sweep || r.sweep->parameters.size() != 2 || r.sweep->points.empty()) return out;
  const Sweep& sw = *r.sweep;
  const std::string& px = sw.parameters[0];
  const std::string& py = sw.parameters[1];
  const auto xs = distinct_values(sw, px);
  const auto ys = distinct_values(sw, py);
  // One colour scale for every strategy, so the same colour is the same goodput everywhere.
  double lo = kInf, hi = -kInf;
  for (const auto& p : sw.points) {
    for (const auto& s : p.strategies) {
      auto it = s.summary.find("goodput");
      if (it != s.summary.end() && std::isfinite(it->second.mean)) {
        lo = std::min(lo, it->second.mean);
        hi = std::max(hi, it->second.mean);
      }
    }
  }
  if (!std::isfinite(lo)) return out;
  std::vector<std::string> used;
  for (const auto& st : sw.points.front().strategies) {
    Chart ch;
    ch.id = chart_id(st.name, used);
    ch.title = fmt::format("{}: goodput over {} × {}", st.label, px, py);
    ch.caption = fmt::format(
        "Mean goodput of {} at every combination of the two varied parameters; one colour scale "
        "for all strategies ({}% to {}%). The outlined cell marked ★ is this strategy's best.",
        st.label, svg::pct(lo), svg::pct(hi));
    // The best cell: highest mean goodput (first in sweep order on equal means).
    const SweepPoint* best = nullptr;
    for (const auto& p : sw.points) {
      const MetricSummary* g = goodput_of(p, st.name);
      if (g == nullptr || !std::isfinite(g->mean)) continue;
      if (best == nullptr || g->mean > goodput_of(*best, st.name)->mean) best = &p;
    }
    ch.table.headers = {py + " \\ " + px};
    for (const auto& x : xs) ch.table.headers.push_back(x);
    const double cell_w = std::clamp(720.0 / static_cast<double>(xs.size()), 40.0, 140.0);
    const double cell_h = std::clamp(360.0 / static_cast<double>(ys.size()), 24.0, 60.0);
    const double left = 150.0;
    const double top = 30.0;
    const Frame f{left, top, left + cell_w * static_cast<double>(xs.size()),
                  top + cell_h * static_cast<double>(ys.size())};
    svg::Svg s(std::max(520.0, f.right + 110.0), f.bottom + 60.0, ch.id, ch.title);
    for (size_t yi = 0; yi < ys.size(); ++yi) {
      std::vector<std::string> row = {ys[yi]};
      const double cy = f.top + cell_h * static_cast<double>(yi);
      s.text(f.left - 8, cy + cell_h / 2.0 + 4, ys[yi], "end", 11, R"(fill="#222")");
      for (size_t xi = 0; xi < xs.size(); ++xi) {
        const double cx = f.left + cell_w * static_cast<double>(xi);
        const SweepPoint* pt = nullptr;
        for (const auto& p : sw.points) {
          if (p.values.at(px) == xs[xi] && p.values.at(py) == ys[yi]) pt = &p;
        }
        const MetricSummary* g = pt ? goodput_of(*pt, st.name) : nullptr;
        if (g == nullptr || !std::isfinite(g->mean)) {
          row.push_back("–");
          s.rect(cx, cy, cell_w, cell_h, "#f0f0f0", R"(stroke="#fff")");
          continue;
        }
        const double t = hi > lo ? (g->mean - lo) / (hi - lo) : 0.5;
        const bool is_best = pt == best;
        row.push_back(fmt::format("{}{} [{}, {}]", is_best ? "★ " : "", svg::pct(g->mean),
                                  svg::pct(g->ci95_lo), svg::pct(g->ci95_hi)));
        s.raw(fmt::format(
            R"(<rect class="cell" x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="{}" stroke="#fff"><title>{} = {}, {} = {}: goodput {}% [{}, {}]</title></rect>)"
            "\n",
            cx, cy, cell_w, cell_h, sequential(t), svg::escape(px), svg::escape(xs[xi]),
            svg::escape(py), svg::escape(ys[yi]), svg::pct(g->mean), svg::pct(g->ci95_lo),
            svg::pct(g->ci95_hi)));
        s.text(cx + cell_w / 2.0, cy + cell_h / 2.0 + 4,
               (is_best ? "★ " : "") + svg::pct(g->mean, 1), "middle", 11,
               t > 0.6 ? R"(fill="#111")" : R"(fill="#fff")");
        if (is_best)
          s.raw(fmt::format(
              R"(<rect class="best" x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="none" stroke="#D55E00" stroke-width="3"/>)"
              "\n",
              cx + 1.5, cy + 1.5, cell_w - 3.0, cell_h - 3.0));
      }
      ch.table.rows.push_back(std::move(row));
    }
    for (size_t xi = 0; xi < xs.size(); ++xi)
      s.text(f.left + cell_w * (static_cast<double>(xi) + 0.5), f.bottom + 16, xs[xi], "middle", 11,
             R"(fill="#222")");
    s.text((f.left + f.right) / 2.0, f.bottom + 38, px, "middle", 12, R"(fill="#222")");
    s.text(14, (f.top + f.bottom) / 2.0, py, "middle", 12, R"(fill="#222")", -90.0);
    // Colour key.
    const double kx = f.right + 24.0;
    for (int i = 0; i < 20; ++i) {
      const double t0 = 1.0 - i / 20.0;
      s.rect(kx, f.top + (f.height() / 20.0) * i, 16, f.height() / 20.0 + 0.5, sequential(t0));
    }
    s.text(kx + 20, f.top + 10, svg::pct(hi) + "%", "start", 10, R"(fill="#222")");
    s.text(kx + 20, f.bottom, svg::pct(lo) + "%", "start", 10, R"(fill="#222")");
    ch.table.note = "mean goodput [95% CI]; ★ the best cell";
    ch.svg = s.finish();
    out.push_back(std::move(ch));
  }
  return out;
}

Results best_point_results(const Results& r) {
  Results out = r;
  if (!r.sweep || r.sweep->points.empty()) return out;
  const Sweep& sw = *r.sweep;
  out.strategies.clear();
  out.paired.clear();
  for (const auto& first : sw.points.front().strategies) {
    const SweepPoint* best = nullptr;
    for (const auto& p : sw.points) {
      const MetricSummary* g = goodput_of(p, first.name);
      if (g == nullptr || !std::isfinite(g->mean)) continue;
      if (best == nullptr || g->mean > goodput_of(*best, first.name)->mean) best = &p;
    }
    if (best == nullptr) continue;
    for (const auto& s : best->strategies) {
      if (s.name != first.name) continue;
      StrategyResult one = s;
      std::string at;
      for (const auto& param : sw.parameters)
        at += fmt::format("{}{} = {}", at.empty() ? "" : ", ", param, best->values.at(param));
      one.label = fmt::format("{} @ {}", s.label, at);
      out.strategies.push_back(std::move(one));
    }
  }
  // Pairs exist only within a point: those of the verdict's point.
  if (r.verdict && r.verdict->point && *r.verdict->point >= 0 &&
      static_cast<size_t>(*r.verdict->point) < sw.points.size())
    out.paired = sw.points[static_cast<size_t>(*r.verdict->point)].paired;
  return out;
}

}  // namespace ntpsim::reports
