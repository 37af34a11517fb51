// The plan page: a plan document (kind "plan", docs/results-schema.md) as a Page of the report
// family (content.h), so it renders to HTML and Markdown exactly like a run report: verdict
// first, the context block, warnings (anything not measured), the frontier chart, the cost
// breakdown with its CI and tie flags, and the per-family table.
// Reads the document with nlohmann's checked accessors; a malformed one throws
// nlohmann::json::exception (the writer reports it). Thread safety: pure functions.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "reports/content.h"
#include "reports/report.h"
#include "reports/svg.h"

namespace ntpsim::reports {
namespace {

using nlohmann::json;

double num_or_nan(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>()
                                          : std::numeric_limits<double>::quiet_NaN();
}

std::string money(double v) {
  if (!std::isfinite(v)) return "–";
  const double a = std::fabs(v);
  const char* sign = v < 0 ? "-" : "";
  if (a >= 1e9) return fmt::format("{}${:.2f}B", sign, a / 1e9);
  if (a >= 1e6) return fmt::format("{}${:.2f}M", sign, a / 1e6);
  if (a >= 1e3) return fmt::format("{}${:.1f}k", sign, a / 1e3);
  return fmt::format("{}${:.0f}", sign, a);
}

std::string money_ci(const json& m) {
  const double lo = num_or_nan(m, "cost_ci95_lo");
  const double hi = num_or_nan(m, "cost_ci95_hi");
  if (!std::isfinite(lo) || !std::isfinite(hi)) return money(num_or_nan(m, "cost"));
  return fmt::format("{} [{}, {}]", money(num_or_nan(m, "cost")), money(lo), money(hi));
}

std::string config(const json& c) {
  const int cp = c.contains("cp") ? c.at("cp").get<int>() : 1;  // absent: CP 1
  std::string s = fmt::format("{} · {}+{} racks × {} GPUs · TP{}{} PP{} DP{}",
                              c.at("hardware").get<std::string>(), c.at("domains").get<int>(),
                              c.at("spare_domains").get<int>(), c.at("gpus_per_domain").get<int>(),
                              c.at("tp").get<int>(), cp > 1 ? fmt::format(" CP{}", cp) : "",
                              c.at("pp").get<int>(), c.at("dp").get<int>());
  const double interval = num_or_nan(c, "checkpoint_interval_s");
  if (std::isfinite(interval)) {
    const bool automatic =
        c.contains("checkpoint_interval") && c.at("checkpoint_interval").is_string();
    s += fmt::format(" · checkpoint every {} s{}", svg::num(interval), automatic ? " (auto)" : "");
  }
  const double cap = num_or_nan(c, "power_cap");
  if (std::isfinite(cap) && cap > 0) s += fmt::format(" · power cap +{}%", svg::pct(cap, 0));
  // Absent from plans written before the screen recorded it.
  const double rate = c.contains("closed_form")
                          ? num_or_nan(c.at("closed_form"), "ideal_tokens_per_s_per_gpu")
                          : std::nan("");
  if (std::isfinite(rate)) s += fmt::format(" · {} tokens/s/GPU failure-free", svg::num(rate, 4));
  return s;
}

std::string family_of(const json& c) {
  return c.at("family").get<std::string>();
}

// Scatter of every Monte Carlo candidate (cost vs the time/goodput quantile), the frontier joined.
Chart frontier_chart(const json& doc, bool ttt) {
  Chart ch;
  ch.id = "plan-frontier";
  ch.title =
      ttt ? "Pareto frontier: cost against time to train" : "Pareto frontier: cost against goodput";
  ch.caption =
      "Every candidate simulated by Monte Carlo: cost against the confidence quantile of the "
      "target metric; filled markers met the target, grey ones did not; the dashed line joins "
      "the Pareto frontier.";
  ch.table.headers = {"Family", "Configuration", "Status", "Cost",
                      ttt ? "TTT quantile (days)" : "Goodput quantile (%)"};
  const json& cands = doc.at("candidates");
  const char* ykey = ttt ? "days_q" : "goodput_q";
  std::vector<const json*> mc;
  double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = x0, y1 = -x0;
  for (const auto& c : cands) {
    if (!c.contains("monte_carlo")) continue;
    const double x = num_or_nan(c.at("monte_carlo"), "cost") / 1e6;
    const double y = num_or_nan(c.at("monte_carlo"), ykey);
    ch.table.rows.push_back({family_of(c), config(c), c.at("status").get<std::string>(),
                             money(x * 1e6), ttt ? svg::num(y) : svg::pct(y)});
    if (!std::isfinite(x) || !std::isfinite(y)) continue;
    mc.push_back(&c);
    x0 = std::min(x0, x), x1 = std::max(x1, x), y0 = std::min(y0, y), y1 = std::max(y1, y);
  }
  if (mc.empty()) {
    ch.table.note = "no candidate reached Monte Carlo";
    return ch;
  }
  if (x1 == x0) x0 -= 0.5, x1 += 0.5;
  if (y1 == y0) y0 -= ttt ? 0.5 : 0.005, y1 += ttt ? 0.5 : 0.005;
  svg::Svg s(860, 380, ch.id, ch.title);
  const svg::Frame f{80, 20, 840, 310};
  const auto xt = svg::nice_ticks(x0, x1, 6), yt = svg::nice_ticks(y0, y1, 5);
  const svg::Scale xs{xt.front(), xt.back(), f.left, f.right};
  const svg::Scale ys{yt.front(), yt.back(), f.bottom, f.top};
  svg::x_axis(s, f, xs, xt, "cost (million $)");
  svg::y_axis(s, f, ys, yt, ttt ? "time to train, confidence quantile (days)" : "goodput quantile",
              !ttt);
  std::map<std::string, size_t> family_index;
  for (const auto& fam : doc.at("families"))
    family_index.emplace(fam.at("family").get<std::string>(), family_index.size());
  for (const json* c : mc) {
    const auto& m = c->at("monte_carlo");
    const double x = num_or_nan(m, "cost") / 1e6, y = num_or_nan(m, ykey);
    const size_t k = family_index[family_of(*c)];
    const bool ok = c->at("status") == "confirmed";
    s.marker(
        k % 6, xs(x), ys(y), ok ? 6 : 4, ok ? svg::colour(k) : "#999999",
        fmt::format("{}: {} ({})", family_of(*c), config(*c), c->at("status").get<std::string>()));
  }
  std::vector<double> fx, fy;
  for (const auto& i : doc.at("frontier")) {
    const auto& m = cands.at(i.get<size_t>()).at("monte_carlo");
    fx.push_back(xs(num_or_nan(m, "cost") / 1e6));
    fy.push_back(ys(num_or_nan(m, ykey)));
  }
  if (!fx.empty()) s.polyline(fx, fy, "#000000", 1.5, "4 3");
  std::vector<svg::LegendItem> items;
  for (const auto& [name, k] : family_index)
    items.push_back({name, svg::colour(k), svg::LegendItem::Kind::kMarker, k % 6});
  svg::legend(s, f.left, 350, 760, items);
  ch.svg = s.finish();
  return ch;
}

}  // namespace

Page plan_page(const nlohmann::json& doc) {
  const json& ctx = doc.at("context");
  const json& t = doc.at("target");
  const bool ttt = t.at("kind") == "time_to_train";
  const json& cands = doc.at("candidates");
  const json& prices = doc.at("prices");
  const std::string plan_name = ctx.at("plan_name").get<std::string>();
  Page page;
  page.title = "Capacity plan: " + plan_name;
  const std::string target =
      ttt ? fmt::format("{:.4g} tokens within {} days", t.at("tokens").get<double>(),
                        svg::num(t.at("deadline_s").get<double>() / 86400))
          : fmt::format("goodput ≥ {}%", svg::pct(t.at("goodput").get<double>()));
  const double confidence = t.at("confidence").get<double>();
  page.subtitle = fmt::format("Plan · target {} at {}% confidence · seed {}", target,
                              svg::num(100 * confidence), ctx.at("seed").get<uint64_t>());
  page.generator = fmt::format("ntpsim {} ({})", ctx.at("version").get<std::string>(),
                               ctx.at("git_sha").get<std::string>());

  // Provenance of the step times: every hardware profile the candidates used.
  std::map<std::string, std::string> origins;
  for (const auto& c : cands)
    origins.emplace(c.at("hardware").get<std::string>(), c.value("hardware_origin", ""));

  // Verdict.
  const json& best = doc.at("best");
  const json* verdict = doc.contains("verdict") ? &doc.at("verdict") : nullptr;
  if (best.is_null()) {
    page.verdict.headline = "No configuration meets the target";
  } else {
    const json& b = cands.at(best.get<size_t>());
    const json& bm = b.at("monte_carlo");
    VerdictBox& box = page.verdict;
    const bool has_runner = verdict != nullptr && !verdict->at("runner_up").is_null();
    if (!has_runner) {
      box.headline = fmt::format("Pick {}: {} (the only family that meets the target)",
                                 family_of(b), money_ci(bm));
    } else {
      const json& u = cands.at(verdict->at("runner_up").get<size_t>());
      const double margin = num_or_nan(*verdict, "margin");
      const double rel = num_or_nan(*verdict, "margin_relative");
      const double lo = num_or_nan(*verdict, "margin_ci95_lo");
      const double hi = num_or_nan(*verdict, "margin_ci95_hi");
      box.tied = verdict->at("tied").get<bool>();
      const std::string ci =
          std::isfinite(lo) ? fmt::format("95% CI [{}, {}]", money(lo), money(hi)) : "no CI";
      box.headline =
          box.tied
              ? fmt::format("Statistically tied on cost: {} and {} ({} apart, {}%, {} contains 0)",
                            family_of(b), family_of(u), money(margin), svg::pct(rel, 2), ci)
              : fmt::format("Pick {}: {} cheaper than {} ({}%, {})", family_of(b), money(margin),
                            family_of(u), svg::pct(rel, 2), ci);
      box.rows.emplace_back("Runner-up", fmt::format("{} — {}, {}", family_of(u), config(u),
                                                     money_ci(u.at("monte_carlo"))));
    }
    box.rows.emplace_back("Cost of the pick", money_ci(bm) + " (mean [95% CI] over replications)");
    box.rows.emplace_back("Configuration", config(b));
    box.rows.emplace_back("GPUs", fmt::format("{} ({} spare)", b.at("gpus").get<int64_t>(),
                                              b.value("spare_gpus", int64_t{0})));
    if (ttt)
      box.rows.emplace_back(
          "Time to train",
          fmt::format("median {} days, {}% quantile {} days", svg::num(num_or_nan(bm, "days_p50")),
                      svg::num(100 * confidence), svg::num(num_or_nan(bm, "days_q"))));
    box.rows.emplace_back("Goodput",
                          fmt::format("{}% mean", svg::pct(num_or_nan(bm, "goodput_mean"))));
    box.rows.emplace_back("P(meets target)", svg::num(num_or_nan(bm, "p_meet"), 3));
    const std::string hw = b.at("hardware").get<std::string>();
    box.rows.emplace_back("Step times", fmt::format("{} profile {}", hw, origin_text(origins[hw])));
  }

  // Context.
  page.context.emplace_back("Tool", fmt::format("{} {}", ctx.value("tool", "ntpsim"),
                                                ctx.at("version").get<std::string>()));
  page.context.emplace_back("Git SHA", ctx.at("git_sha").get<std::string>());
  page.context.emplace_back("Build type", ctx.at("build_type").get<std::string>());
  page.context.emplace_back("Kind", "plan");
  page.context.emplace_back("Plan", fmt::format("{} ({})", plan_name, ctx.value("plan_file", "")));
  page.context.emplace_back("Base scenario", ctx.value("base_scenario", ""));
  page.context.emplace_back("Seed", fmt::format("{}", ctx.at("seed").get<uint64_t>()));
  page.context.emplace_back(
      "Target", fmt::format("{} at {}% confidence", target, svg::num(100 * confidence)));
  for (const auto& [hw, origin] : origins)
    page.context.emplace_back("Hardware profile", fmt::format("{} — {}", hw, origin_text(origin)));
  const double gpu_hour = num_or_nan(prices, "gpu_hour");
  page.context.emplace_back(
      "Prices",
      fmt::format(
          "{} · spare factor {} · energy ${}/MWh",
          gpu_hour > 0
              ? fmt::format("${}/GPU-hour", svg::num(gpu_hour))
              : fmt::format("rack capex {} over {} days", money(num_or_nan(prices, "rack_capex")),
                            svg::num(num_or_nan(prices, "amortisation_s") / 86400)),
          svg::num(num_or_nan(prices, "spare_factor")),
          svg::num(num_or_nan(prices, "energy_per_mwh"))));
  const json& search = doc.at("search");
  page.context.emplace_back(
      "Search", fmt::format("{} candidates screened; {} Monte Carlo runs ({} replications)",
                            search.at("candidates").get<int64_t>(),
                            search.at("monte_carlo_runs").get<int64_t>(),
                            search.at("replications").get<int64_t>()));
  if (ctx.contains("description") && !ctx.at("description").get<std::string>().empty())
    page.context.emplace_back("Description", ctx.at("description").get<std::string>());

  // Warnings.
  for (const auto& [hw, origin] : origins) {
    if (origin != "measured")
      page.warnings.push_back(fmt::format(
          "hardware profile '{}' is {}: step times, and so every time and cost here, are not "
          "calibrated on real GPUs",
          hw, origin_text(origin)));
  }
  if (page.verdict.tied)
    page.warnings.push_back(
        "the pick and the runner-up are statistically tied on cost: choose on other grounds, "
        "or confirm with more replications");

  page.charts.push_back(frontier_chart(doc, ttt));
  if (page.charts.back().svg.empty()) page.charts.clear();

  // Per family: the recommended configuration, and its cost breakdown.
  Section families{"families", "Recommended configuration per strategy family", {}};
  families.table.headers = {"Family", "Configuration"};
  if (ttt) {
    families.table.headers.push_back("TTT p50 (days)");
    families.table.headers.push_back("TTT quantile (days)");
  } else {
    families.table.headers.push_back("Goodput quantile (%)");
  }
  for (const char* h : {"Goodput (%)", "P(meet)", "Energy (MWh)", "Cost"})
    families.table.headers.push_back(h);
  Section costs{"costs", "Cost breakdown", {}};
  costs.table.headers = {"Family",      "GPUs",       "Spare GPUs", "Compute cost", "Energy (MWh)",
                         "Energy cost", "Total cost", "95% CI low", "95% CI high",  "vs the pick"};
  const double best_cost = best.is_null()
                               ? std::nan("")
                               : num_or_nan(cands.at(best.get<size_t>()).at("monte_carlo"), "cost");
  const double best_lo =
      best.is_null() ? std::nan("")
                     : num_or_nan(cands.at(best.get<size_t>()).at("monte_carlo"), "cost_ci95_lo");
  const double best_hi =
      best.is_null() ? std::nan("")
                     : num_or_nan(cands.at(best.get<size_t>()).at("monte_carlo"), "cost_ci95_hi");
  for (const auto& fam : doc.at("families")) {
    const std::string name = fam.at("family").get<std::string>();
    if (fam.at("best").is_null()) {
      std::vector<std::string> row = {name, "fails: " + fam.at("why_not").get<std::string>()};
      row.resize(families.table.headers.size(), "–");
      families.table.rows.push_back(std::move(row));
      continue;
    }
    const json& c = cands.at(fam.at("best").get<size_t>());
    const json& m = c.at("monte_carlo");
    const bool is_best = !best.is_null() && best == fam.at("best");
    std::vector<std::string> row = {name + (is_best ? " (pick)" : ""), config(c)};
    if (ttt) {
      row.push_back(svg::num(num_or_nan(m, "days_p50")));
      row.push_back(svg::num(num_or_nan(m, "days_q")));
    } else {
      row.push_back(svg::pct(num_or_nan(m, "goodput_q")));
    }
    row.push_back(svg::pct(num_or_nan(m, "goodput_mean")));
    row.push_back(svg::num(num_or_nan(m, "p_meet"), 3));
    row.push_back(svg::num(num_or_nan(m, "energy_mwh")));
    row.push_back(money(num_or_nan(m, "cost")));
    families.table.rows.push_back(std::move(row));
    // Tie flag against the pick: the two cost CIs overlap (a conservative reading; the
    // verdict's CI of the difference is the exact test for the runner-up).
    const double lo = num_or_nan(m, "cost_ci95_lo"), hi = num_or_nan(m, "cost_ci95_hi");
    std::string vs = "–";
    if (is_best) {
      vs = "pick";
    } else if (std::isfinite(lo) && std::isfinite(best_lo)) {
      const bool overlap = lo <= best_hi && best_lo <= hi;
      vs = fmt::format("{} {}", money(num_or_nan(m, "cost") - best_cost),
                       overlap ? "(CIs overlap: tied)" : "(dearer)");
    }
    costs.table.rows.push_back(
        {name, fmt::format("{}", c.at("gpus").get<int64_t>()),
         fmt::format("{}", c.value("spare_gpus", int64_t{0})), money(num_or_nan(m, "compute_cost")),
         svg::num(num_or_nan(m, "energy_mwh")), money(num_or_nan(m, "energy_cost")),
         money(num_or_nan(m, "cost")), money(lo), money(hi), vs});
  }
  costs.table.note =
      "compute cost = cluster hours (spares at the spare factor) × price; energy cost = mean "
      "energy × price; the CI is Student-t over the replications, each priced with its own time "
      "and energy";
  page.sections.push_back(std::move(families));
  page.sections.push_back(std::move(costs));
  Section outcomes{"outcomes", "Candidates by outcome", {}};
  outcomes.table.headers = {"Status", "Count"};
  std::map<std::string, int> counts;
  for (const auto& c : cands) ++counts[c.at("status").get<std::string>()];
  for (const auto& [k, v] : counts) outcomes.table.rows.push_back({k, fmt::format("{}", v)});
  page.sections.push_back(std::move(outcomes));
  page.source_id = "plan-document";
  page.source_summary = "The plan document";
  page.source_json = doc.dump(2);
  page.footer =
      fmt::format("Generated by ntpsim {} (git {}, {} build) from a plan document.",
                  ctx.at("version").get<std::string>(), ctx.at("git_sha").get<std::string>(),
                  ctx.at("build_type").get<std::string>());
  return page;
}

std::string render_plan_html(const nlohmann::json& plan_doc) {
  return render_page_html(plan_page(plan_doc));
}

}  // namespace ntpsim::reports
