// The sensitivity page: a sensitivity document (kind "sensitivity", `ntpsim sensitivity --out`,
// docs/sensitivity.md) as a Page of the report family (content.h), so it renders to HTML and
// Markdown like a run report: the verdict first, the context, the notes as warnings, then the
// tornado of the leader's margin, the win probabilities, the break-even lines and the Sobol'
// indices, each chart with the table of its numbers, and the inputs with their sources.
// Reads the document with nlohmann's checked accessors; a malformed one throws
// nlohmann::json::exception (the writer reports it). Thread safety: pure functions.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "reports/content.h"
#include "reports/report.h"
#include "reports/svg.h"

namespace ntpsim::reports {
namespace {

using nlohmann::json;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double num(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : kNaN;
}

// Percentage points of a goodput difference, signed ("+0.32").
std::string pts(double v) {
  return std::isfinite(v) ? fmt::format("{:+.2f}", 100 * v) : "–";
}

size_t index_of(const json& names, const std::string& name) {
  for (size_t i = 0; i < names.size(); ++i) {
    if (names.at(i).get<std::string>() == name) return i;
  }
  throw json::other_error::create(501, "strategy '" + name + "' is not listed", &names);
}

// d = goodput(leader) - goodput(runner-up) of an evaluation {"strategies": [{"goodput"}...]}.
double margin(const json& eval, size_t leader, size_t runner_up) {
  const json& s = eval.at("strategies");
  return s.at(leader).at("goodput").get<double>() - s.at(runner_up).at("goodput").get<double>();
}

const json& input_named(const json& doc, const std::string& path) {
  for (const auto& in : doc.at("inputs")) {
    if (in.at("path").get<std::string>() == path) return in;
  }
  throw json::other_error::create(501, "input '" + path + "' is not listed", &doc);
}

// Left column width for input labels, and the label text trimmed to fit it.
constexpr double kLabelWidth = 300;
std::string fit(const std::string& s, size_t max_chars = 44) {
  return s.size() <= max_chars ? s : s.substr(0, max_chars - 1) + "…";
}

Chart tornado_chart(const json& doc, size_t leader, size_t runner_up, const std::string& lead,
                    const std::string& second) {
  Chart ch;
  ch.id = "sensitivity-tornado";
  ch.title = fmt::format("Tornado: {}'s margin over {}", lead, second);
  ch.caption =
      "Each input at its low and high value, the others at their resolved values: the bars run "
      "from the margin at the resolved values (dashed) to the margin at each end. A bar that "
      "crosses the solid line at 0 changes the leader.";
  ch.table.headers = {
      "Input",       "Low",           "High", "Margin at low (pts)", "Margin at high (pts)",
      "Swing (pts)", "Changes winner"};
  const double base = margin(doc.at("base"), leader, runner_up);
  const json& rows = doc.at("tornado");
  double lo = std::min(0.0, base), hi = std::max(0.0, base);
  for (const auto& row : rows) {
    const json& in = input_named(doc, row.at("input").get<std::string>());
    const double dl = margin(row.at("low"), leader, runner_up);
    const double dh = margin(row.at("high"), leader, runner_up);
    lo = std::min({lo, dl, dh});
    hi = std::max({hi, dl, dh});
    ch.table.rows.push_back({row.at("input").get<std::string>(),
                             in.at("low_text").get<std::string>(),
                             in.at("high_text").get<std::string>(), pts(dl), pts(dh),
                             fmt::format("{:.2f}", 100 * row.at("swing").get<double>()),
                             row.at("changes_winner").get<bool>() ? "yes" : "no"});
  }
  if (rows.empty()) return ch;
  const double row_h = 28;
  const double height = 40 + row_h * static_cast<double>(rows.size()) + 80;
  svg::Svg s(860, height, ch.id, ch.title);
  const svg::Frame f{kLabelWidth, 20, 840, 20 + row_h * static_cast<double>(rows.size())};
  const auto ticks = svg::nice_ticks(100 * lo, 100 * hi, 6);
  const svg::Scale x{ticks.front(), ticks.back(), f.left, f.right};
  svg::x_axis(s, f, x, ticks,
              fmt::format("goodput({}) - goodput({}), percentage points", lead, second));
  for (size_t i = 0; i < rows.size(); ++i) {
    const json& row = rows.at(i);
    const json& in = input_named(doc, row.at("input").get<std::string>());
    const double y = f.top + row_h * static_cast<double>(i);
    const double dl = 100 * margin(row.at("low"), leader, runner_up);
    const double dh = 100 * margin(row.at("high"), leader, runner_up);
    const double xb = x(100 * base);
    for (const auto& [d, colour] : {std::pair{dl, svg::colour(0)}, std::pair{dh, svg::colour(1)}}) {
      const double x0 = std::min(xb, x(d)), w = std::max(1.0, std::abs(x(d) - xb));
      s.rect(x0, y + 4, w, row_h - 8, colour);
    }
    s.text(f.left - 8, y + row_h / 2 + 4,
           fmt::format("{} ({} .. {})", fit(row.at("input").get<std::string>(), 30),
                       in.at("low_text").get<std::string>(), in.at("high_text").get<std::string>()),
           "end", 11);
  }
  s.line(x(0), f.top, x(0), f.bottom, "#000000", 1.5);
  s.line(x(100 * base), f.top, x(100 * base), f.bottom, "#555555", 1, "4 3");
  svg::legend(
      s, f.left, f.bottom + 50, 500,
      {{"input at its low value", svg::colour(0)}, {"input at its high value", svg::colour(1)}});
  ch.svg = s.finish();
  return ch;
}

Chart win_chart(const json& global) {
  Chart ch;
  ch.id = "sensitivity-win";
  ch.title = "Probability of winning over the sampled worlds";
  ch.caption = fmt::format(
      "Share of the {} Latin-hypercube worlds each strategy wins, with its Wilson 95% interval; "
      "the open circle is the estimate on the first half of the rows (convergence).",
      2 * global.at("samples").get<int>());
  ch.table.headers = {"Strategy", "P(win) (%)", "95% CI low (%)", "95% CI high (%)",
                      "First half (%)"};
  const json& wins = global.at("win_probability");
  for (const auto& w : wins) {
    ch.table.rows.push_back({w.at("strategy").get<std::string>(),
                             svg::pct(num(w, "probability"), 1), svg::pct(num(w, "ci95_lo"), 1),
                             svg::pct(num(w, "ci95_hi"), 1),
                             svg::pct(num(w, "probability_first_half"), 1)});
  }
  if (wins.empty()) return ch;
  const double row_h = 26;
  const double height = 40 + row_h * static_cast<double>(wins.size()) + 50;
  svg::Svg s(860, height, ch.id, ch.title);
  const svg::Frame f{220, 20, 840, 20 + row_h * static_cast<double>(wins.size())};
  const auto ticks = svg::nice_ticks(0, 1, 5);
  const svg::Scale x{0, 1, f.left, f.right};
  svg::x_axis(s, f, x, ticks, "probability of winning", true);
  for (size_t i = 0; i < wins.size(); ++i) {
    const json& w = wins.at(i);
    const double y = f.top + row_h * static_cast<double>(i);
    const double p = num(w, "probability");
    s.rect(f.left, y + 4, std::max(0.0, x(p) - f.left), row_h - 8, svg::colour(i));
    const double cy = y + row_h / 2;
    s.line(x(num(w, "ci95_lo")), cy, x(num(w, "ci95_hi")), cy, "#000000", 1.5);
    s.line(x(num(w, "ci95_lo")), cy - 5, x(num(w, "ci95_lo")), cy + 5, "#000000", 1.5);
    s.line(x(num(w, "ci95_hi")), cy - 5, x(num(w, "ci95_hi")), cy + 5, "#000000", 1.5);
    s.circle(x(num(w, "probability_first_half")), cy, 4, "none",
             "stroke=\"#000000\" stroke-width=\"1.2\"");
    s.text(f.left - 8, cy + 4, fit(w.at("strategy").get<std::string>(), 30), "end", 11);
  }
  ch.svg = s.finish();
  return ch;
}

Chart break_even_chart(const json& doc, const std::string& lead, const std::string& second) {
  Chart ch;
  ch.id = "sensitivity-break-even";
  ch.title = fmt::format("Break-even values: where {} and {} tie", lead, second);
  ch.caption =
      "Each line spans the input's values from low to high (and the resolved value, the circle, "
      "when it lies outside); the red mark is where the two leading strategies tie, the shaded "
      "part where the runner-up leads.";
  ch.table.headers = {"Input", "Runner-up leads",    "Break-even",
                      "±",     "Margin there (pts)", "95% CI (pts)"};
  const json& bes = doc.at("break_even");
  for (const auto& b : bes) {
    const json& d = b.at("goodput_difference");
    ch.table.rows.push_back(
        {b.at("input").get<std::string>(), b.at("runner_up_leads").get<std::string>(),
         b.at("value_text").get<std::string>(), b.at("resolution_text").get<std::string>(),
         pts(num(d, "mean")),
         fmt::format("[{}, {}]", pts(num(d, "ci95_lo")), pts(num(d, "ci95_hi")))});
  }
  if (bes.empty()) {
    ch.table.note =
        "no break-even within the ranges: the leader leads at every one-at-a-time value";
    return ch;
  }
  const double row_h = 40;
  const double height = 30 + row_h * static_cast<double>(bes.size()) + 10;
  svg::Svg s(860, height, ch.id, ch.title);
  const double left = kLabelWidth, right = 780;
  for (size_t i = 0; i < bes.size(); ++i) {
    const json& b = bes.at(i);
    const json& in = input_named(doc, b.at("input").get<std::string>());
    const double lo = std::min(num(in, "low"), num(in, "resolved"));
    const double hi = std::max(num(in, "high"), num(in, "resolved"));
    const svg::Scale x{lo, hi, left, right};
    const double y = 30 + row_h * static_cast<double>(i);
    const double v = num(b, "value");
    const bool below = b.at("runner_up_leads").get<std::string>() == "below";
    const double shade0 = below ? left : x(v), shade1 = below ? x(v) : right;
    s.rect(shade0, y - 6, std::max(0.0, shade1 - shade0), 12, svg::colour(1), "opacity=\"0.3\"");
    s.line(left, y, right, y, "#000000", 1.5);
    s.circle(x(num(in, "resolved")), y, 4, "#000000");
    s.line(x(v), y - 10, x(v), y + 10, "#D55E00", 2.5);
    s.text(x(v), y - 13,
           fmt::format("{} ± {}", b.at("value_text").get<std::string>(),
                       b.at("resolution_text").get<std::string>()),
           "middle", 10);
    s.text(left, y + 18, in.at("low_text").get<std::string>(), "start", 10);
    s.text(right, y + 18, in.at("high_text").get<std::string>(), "end", 10);
    s.text(left - 8, y + 4, fit(b.at("input").get<std::string>()), "end", 11);
    s.text(right + 6, y + 4, below ? "◀ runner-up" : "runner-up ▶", "start", 10);
  }
  ch.svg = s.finish();
  return ch;
}

std::string estimate_text(const json& e) {
  const double v = num(e, "value");
  if (!std::isfinite(v)) return "–";
  return fmt::format("{:.3f} [{:.3f}, {:.3f}]", v, num(e, "ci95_lo"), num(e, "ci95_hi"));
}

Chart importance_chart(const json& global, const std::string& lead, const std::string& second) {
  Chart ch;
  ch.id = "sensitivity-importance";
  ch.title = "Which input decides: Sobol' indices of the margin";
  ch.caption = fmt::format(
      "Share of the variance of goodput({}) - goodput({}) over the sampled worlds "
      "that each input explains alone (first order) and with its interactions (total "
      "effect), with bootstrap 95% intervals; the convergence columns give both on the "
      "first rows of the design.",
      lead, second);
  ch.table.headers = {"Input", "First order [95% CI]", "Total effect [95% CI]"};
  const json& conv = global.at("convergence");
  for (const auto& c : conv) {
    ch.table.headers.push_back(fmt::format("S / ST at {} rows", c.at("rows").get<int>()));
  }
  const json& idx = global.at("importance");
  double lo = 0, hi = 1;
  for (size_t i = 0; i < idx.size(); ++i) {
    const json& e = idx.at(i);
    std::vector<std::string> row = {e.at("input").get<std::string>(),
                                    estimate_text(e.at("first_order")),
                                    estimate_text(e.at("total"))};
    for (const auto& c : conv) {
      const json& ci = c.at("indices").at(i);
      row.push_back(fmt::format("{} / {}", svg::num(num(ci, "first_order"), 3),
                                svg::num(num(ci, "total"), 3)));
    }
    ch.table.rows.push_back(std::move(row));
    for (const char* k : {"first_order", "total"}) {
      const double l = num(e.at(k), "ci95_lo"), h = num(e.at(k), "ci95_hi");
      if (std::isfinite(l)) lo = std::min(lo, l);
      if (std::isfinite(h)) hi = std::max(hi, h);
    }
  }
  if (idx.empty()) return ch;
  const double row_h = 30;
  const double height = 40 + row_h * static_cast<double>(idx.size()) + 80;
  svg::Svg s(860, height, ch.id, ch.title);
  const svg::Frame f{kLabelWidth, 20, 840, 20 + row_h * static_cast<double>(idx.size())};
  const auto ticks = svg::nice_ticks(lo, hi, 6);
  const svg::Scale x{ticks.front(), ticks.back(), f.left, f.right};
  svg::x_axis(s, f, x, ticks, "share of the variance of the margin");
  for (size_t i = 0; i < idx.size(); ++i) {
    const json& e = idx.at(i);
    const double y = f.top + row_h * static_cast<double>(i);
    size_t k = 0;
    for (const char* key : {"first_order", "total"}) {
      const json& est = e.at(key);
      const double v = num(est, "value");
      const double by = y + 4 + 11 * static_cast<double>(k);
      if (std::isfinite(v)) {
        const double x0 = std::min(x(0), x(v));
        s.rect(x0, by, std::max(1.0, std::abs(x(v) - x(0))), 10, svg::colour(k));
        const double l = num(est, "ci95_lo"), h = num(est, "ci95_hi");
        if (std::isfinite(l) && std::isfinite(h))
          s.line(x(l), by + 5, x(h), by + 5, "#000000", 1.2);
      }
      ++k;
    }
    s.text(f.left - 8, y + row_h / 2 + 4, fit(e.at("input").get<std::string>()), "end", 11);
  }
  s.line(x(0), f.top, x(0), f.bottom, "#000000", 1);
  svg::legend(s, f.left, f.bottom + 50, 500,
              {{"first order", svg::colour(0)}, {"total effect", svg::colour(1)}});
  ch.svg = s.finish();
  return ch;
}

}  // namespace

bool is_sensitivity_document(const nlohmann::json& doc) {
  return doc.is_object() && doc.contains("kind") && doc.at("kind") == "sensitivity";
}

Page sensitivity_page(const nlohmann::json& doc) {
  const json& ctx = doc.at("context");
  const json& names = doc.at("strategies");
  const std::string lead = doc.at("leader").get<std::string>();
  const std::string second = doc.at("runner_up").get<std::string>();
  const size_t leader = index_of(names, lead), runner_up = index_of(names, second);
  const json& global = doc.at("global");
  const std::string scenario = doc.at("scenario_file").get<std::string>();
  Page page;
  page.title = "Sensitivity: which assumption decides the answer";
  page.subtitle = fmt::format("{} · {} inputs · {} evaluations × {} replications · seed {}",
                              scenario, doc.at("inputs").size(), doc.at("evaluations").get<int>(),
                              doc.at("replications").get<int>(), doc.at("seed").get<uint64_t>());
  page.generator = fmt::format("ntpsim {} ({})", ctx.at("version").get<std::string>(),
                               ctx.at("git_sha").get<std::string>());

  VerdictBox& box = page.verdict;
  box.headline = doc.at("verdict").get<std::string>();
  const json& base = doc.at("base").at("strategies");
  box.rows.emplace_back("At the resolved values",
                        fmt::format("{} leads with goodput {}%, {} pts over {} ({}%)", lead,
                                    svg::pct(base.at(leader).at("goodput").get<double>()),
                                    pts(margin(doc.at("base"), leader, runner_up)), second,
                                    svg::pct(base.at(runner_up).at("goodput").get<double>())));
  int flips = 0;
  for (const auto& row : doc.at("tornado")) flips += row.at("changes_winner").get<bool>() ? 1 : 0;
  box.rows.emplace_back("Inputs that change the winner alone",
                        fmt::format("{} of {}", flips, doc.at("tornado").size()));
  for (const auto& b : doc.at("break_even")) {
    box.rows.emplace_back("Break-even", fmt::format("{} overtakes {} when {} {} {} ± {}", second,
                                                    lead, b.at("input").get<std::string>(),
                                                    b.at("runner_up_leads") == "below" ? "<" : ">",
                                                    b.at("value_text").get<std::string>(),
                                                    b.at("resolution_text").get<std::string>()));
  }

  page.context.emplace_back("Tool", fmt::format("{} {}", ctx.value("tool", "ntpsim"),
                                                ctx.at("version").get<std::string>()));
  page.context.emplace_back("Git SHA", ctx.at("git_sha").get<std::string>());
  page.context.emplace_back("Build type", ctx.at("build_type").get<std::string>());
  page.context.emplace_back("Kind", "sensitivity");
  page.context.emplace_back("Scenario", fmt::format("{} (hash {})", scenario,
                                                    doc.at("scenario_hash").get<std::string>()));
  page.context.emplace_back("Seed", fmt::format("{}", doc.at("seed").get<uint64_t>()));
  page.context.emplace_back("Replications per evaluation",
                            fmt::format("{}", doc.at("replications").get<int>()));
  page.context.emplace_back("Decision metric", doc.at("decision_metric").get<std::string>());
  if (global.at("samples").get<int>() > 0) {
    page.context.emplace_back("Global design", global.at("design").get<std::string>());
    if (global.contains("index_estimator"))
      page.context.emplace_back("Index estimator", global.at("index_estimator").get<std::string>());
  }

  for (const auto& n : doc.at("notes")) page.warnings.push_back(n.get<std::string>());
  const int samples = global.at("samples").get<int>();
  if (samples > 0 && samples < 32) {
    page.warnings.push_back(fmt::format(
        "only {} rows per Latin hypercube: win probabilities and indices are rough (compare the "
        "convergence columns; raise --samples)",
        samples));
  }

  page.charts.push_back(tornado_chart(doc, leader, runner_up, lead, second));
  if (samples > 0) page.charts.push_back(win_chart(global));
  page.charts.push_back(break_even_chart(doc, lead, second));
  if (global.contains("importance")) page.charts.push_back(importance_chart(global, lead, second));

  Section inputs{"sensitivity-inputs", "Uncertain inputs and where their ranges come from", {}};
  inputs.table.headers = {"Input", "Resolved", "One at a time", "Distribution sampled", "Source"};
  for (const auto& in : doc.at("inputs")) {
    inputs.table.rows.push_back(
        {in.at("path").get<std::string>(), in.at("resolved_text").get<std::string>(),
         fmt::format("{} .. {} ({})", in.at("low_text").get<std::string>(),
                     in.at("high_text").get<std::string>(),
                     in.at("one_at_a_time").get<std::string>()),
         in.at("distribution").get<std::string>(), in.at("source").get<std::string>()});
  }
  page.sections.push_back(std::move(inputs));
  page.source_id = "sensitivity-document";
  page.source_summary = "The sensitivity document";
  page.source_json = doc.dump(2);
  page.footer =
      fmt::format("Generated by ntpsim {} (git {}, {} build) from a sensitivity document.",
                  ctx.at("version").get<std::string>(), ctx.at("git_sha").get<std::string>(),
                  ctx.at("build_type").get<std::string>());
  return page;
}

Result<OutputFiles> sensitivity_report_files(const nlohmann::json& doc, const std::string& source,
                                             const std::string& path, Format format) {
  if (format == Format::kCsv) {
    return Error::bad_input(fmt::format(
        "{}: a sensitivity report is .html or .md; `ntpsim sensitivity --csv FILE` writes the "
        "tornado CSV",
        path));
  }
  Page page;
  try {
    page = sensitivity_page(doc);
  } catch (const nlohmann::json::exception& e) {
    return Error::bad_input(fmt::format(
        "{}: sensitivity document does not follow docs/sensitivity.md: {}", source, e.what()));
  }
  if (format == Format::kMarkdown) return page_markdown_files(page, path);
  return OutputFiles{{path, render_page_html(page)}};
}

}  // namespace ntpsim::reports
