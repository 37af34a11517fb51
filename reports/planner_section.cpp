// The planner section of the HTML report: a self-contained page for a plan results document
// (kind "plan", docs/results-schema.md; owner: planner). Called from write_report_files when the
// document's kind is "plan"; reads the document with nlohmann's checked accessors and reports a
// malformed one as a runtime error (it comes from `ntpsim plan`, not from the user).
// Thread safety: pure functions.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "reports/report.h"
#include "reports/svg.h"

namespace ntpsim::reports {
namespace {

using nlohmann::json;

double num_or_nan(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : std::numeric_limits<double>::quiet_NaN();
}

std::string money(double v) {
  if (!std::isfinite(v)) return "–";
  if (v >= 1e9) return fmt::format("${:.2f}B", v / 1e9);
  if (v >= 1e6) return fmt::format("${:.2f}M", v / 1e6);
  return fmt::format("${:.1f}k", v / 1e3);
}

std::string config(const json& c) {
  return fmt::format("{} · {}+{} racks × {} GPUs · TP{} PP{} DP{}",
                     c.at("hardware").get<std::string>(), c.at("domains").get<int>(),
                     c.at("spare_domains").get<int>(), c.at("gpus_per_domain").get<int>(),
                     c.at("tp").get<int>(), c.at("pp").get<int>(), c.at("dp").get<int>());
}

// Scatter of every Monte Carlo candidate (cost vs the time/goodput quantile), the frontier joined.
std::string frontier_chart(const json& doc, bool ttt) {
  const json& cands = doc.at("candidates");
  std::vector<const json*> mc;
  for (const auto& c : cands) {
    if (c.contains("monte_carlo")) mc.push_back(&c);
  }
  if (mc.empty()) return "<p>No candidate reached Monte Carlo.</p>";
  const char* ykey = ttt ? "days_q" : "goodput_q";
  double x0 = std::numeric_limits<double>::infinity(), x1 = -std::numeric_limits<double>::infinity(), y0 = std::numeric_limits<double>::infinity(), y1 = -std::numeric_limits<double>::infinity();
  for (const json* c : mc) {
    const double x = num_or_nan(c->at("monte_carlo"), "cost") / 1e6;
    const double y = num_or_nan(c->at("monte_carlo"), ykey);
    if (!std::isfinite(x) || !std::isfinite(y)) continue;
    x0 = std::min(x0, x), x1 = std::max(x1, x), y0 = std::min(y0, y), y1 = std::max(y1, y);
  }
  if (!std::isfinite(x0)) return "<p>No finite Monte Carlo results.</p>";
  svg::Svg s(720, 360, "plan-frontier", "Pareto frontier: cost against time to train");
  const svg::Frame f{70, 20, 700, 310};
  const auto xt = svg::nice_ticks(x0, x1, 6), yt = svg::nice_ticks(y0, y1, 5);
  const svg::Scale xs{xt.front(), xt.back(), f.left, f.right};
  const svg::Scale ys{yt.front(), yt.back(), f.bottom, f.top};
  svg::x_axis(s, f, xs, xt, "cost (million $)");
  svg::y_axis(s, f, ys, yt, ttt ? "time to train, confidence quantile (days)" : "goodput quantile",
              !ttt);
  std::map<std::string, size_t> family_index;
  for (const auto& fam : doc.at("families")) {
    family_index.emplace(fam.at("family").get<std::string>(), family_index.size());
  }
  for (const json* c : mc) {
    const auto& m = c->at("monte_carlo");
    const double x = num_or_nan(m, "cost") / 1e6, y = num_or_nan(m, ykey);
    if (!std::isfinite(x) || !std::isfinite(y)) continue;
    const size_t k = family_index[c->at("family").get<std::string>()];
    const bool ok = c->at("status") == "confirmed";
    s.marker(k % 6, xs(x), ys(y), ok ? 6 : 4, ok ? svg::colour(k) : "#999999",
             fmt::format("{}: {} ({})", c->at("family").get<std::string>(), config(*c),
                         c->at("status").get<std::string>()));
  }
  std::vector<double> fx, fy;
  for (const auto& i : doc.at("frontier")) {
    const auto& m = cands.at(i.get<size_t>()).at("monte_carlo");
    fx.push_back(xs(num_or_nan(m, "cost") / 1e6));
    fy.push_back(ys(num_or_nan(m, ykey)));
  }
  s.polyline(fx, fy, "#000000", 1.5, "4 3");
  std::vector<svg::LegendItem> items;
  for (const auto& [name, k] : family_index) {
    items.push_back({name, svg::colour(k), svg::LegendItem::Kind::kMarker, k % 6});
  }
  svg::legend(s, f.left, 335, 630, items);
  return s.finish();
}

}  // namespace

std::string render_plan_html(const nlohmann::json& doc) {
  const json& t = doc.at("target");
  const bool ttt = t.at("kind") == "time_to_train";
  const json& cands = doc.at("candidates");
  std::string h =
      "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>ntpsim plan: " +
      svg::escape(doc.at("context").at("plan_name").get<std::string>()) +
      "</title><style>body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;"
      "padding:0 1em;color:#222}table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid "
      "#ccc;padding:.3em .6em;text-align:left}td.n{text-align:right}.best{font-weight:bold}"
      "</style></head><body>\n";
  h += fmt::format("<h1>Capacity plan: {}</h1>\n<p>{}</p>\n",
                   svg::escape(doc.at("context").at("plan_name").get<std::string>()),
                   svg::escape(doc.at("context").at("description").get<std::string>()));
  const std::string target =
      ttt ? fmt::format("{:.4g} tokens within {:.1f} days", t.at("tokens").get<double>(),
                        t.at("deadline_s").get<double>() / 86400)
          : fmt::format("goodput ≥ {}%", svg::pct(t.at("goodput").get<double>()));
  const json& search = doc.at("search");
  h += fmt::format("<section id=\"planner\"><h2>Planner</h2><p>Target: {} at {:.0f}% confidence. "
                   "{} candidates screened in closed form; {} Monte Carlo runs ({} replications); "
                   "seed {}.</p>\n",
                   svg::escape(target), 100 * t.at("confidence").get<double>(),
                   search.at("candidates").get<int>(), search.at("monte_carlo_runs").get<int>(),
                   search.at("replications").get<int64_t>(),
                   doc.at("context").at("seed").get<uint64_t>());
  h += "<h3>Recommended configuration per strategy</h3><table><tr><th>strategy</th>"
       "<th>configuration</th>";
  h += ttt ? "<th>TTT p50 (d)</th><th>TTT quantile (d)</th>" : "<th>goodput quantile</th>";
  h += "<th>goodput</th><th>P(meet)</th><th>energy (MWh)</th><th>cost</th></tr>\n";
  const json& best = doc.at("best");
  for (const auto& fam : doc.at("families")) {
    const std::string name = svg::escape(fam.at("family").get<std::string>());
    if (fam.at("best").is_null()) {
      h += fmt::format("<tr><td>{}</td><td colspan=\"7\">fails: {}</td></tr>\n", name,
                       svg::escape(fam.at("why_not").get<std::string>()));
      continue;
    }
    const json& c = cands.at(fam.at("best").get<size_t>());
    const json& m = c.at("monte_carlo");
    const bool is_best = !best.is_null() && best == fam.at("best");
    h += fmt::format("<tr{}><td>{}</td><td>{}</td>", is_best ? " class=\"best\"" : "", name,
                     svg::escape(config(c)));
    if (ttt) {
      h += fmt::format("<td class=\"n\">{}</td><td class=\"n\">{}</td>", svg::num(num_or_nan(m, "days_p50")),
                       svg::num(num_or_nan(m, "days_q")));
    } else {
      h += fmt::format("<td class=\"n\">{}%</td>", svg::pct(num_or_nan(m, "goodput_q")));
    }
    h += fmt::format("<td class=\"n\">{}%</td><td class=\"n\">{}</td><td class=\"n\">{}</td>"
                     "<td class=\"n\">{}</td></tr>\n",
                     svg::pct(num_or_nan(m, "goodput_mean")), svg::num(num_or_nan(m, "p_meet"), 3),
                     svg::num(num_or_nan(m, "energy_mwh")), money(num_or_nan(m, "cost")));
  }
  h += "</table>\n";
  h += best.is_null() ? "<p><b>No configuration meets the target.</b></p>\n"
                      : fmt::format("<p><b>Recommended:</b> {} — {}.</p>\n",
                                    svg::escape(cands.at(best.get<size_t>()).at("family").get<std::string>()),
                                    svg::escape(config(cands.at(best.get<size_t>()))));
  h += "<h3>Pareto frontier: time to train against cost</h3>\n" + frontier_chart(doc, ttt) + "\n";
  std::map<std::string, int> counts;
  for (const auto& c : cands) ++counts[c.at("status").get<std::string>()];
  h += "<h3>Candidates by outcome</h3><table><tr><th>status</th><th>count</th></tr>";
  for (const auto& [k, v] : counts) h += fmt::format("<tr><td>{}</td><td class=\"n\">{}</td></tr>", k, v);
  h += "</table></section></body></html>\n";
  return h;
}

}  // namespace ntpsim::reports
