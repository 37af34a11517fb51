#include "tools/validate/chart.h"

#include <algorithm>
#include <limits>

#include "reports/svg.h"

namespace ntpsim::validate {

namespace svg = reports::svg;

std::string line_chart(const ChartSpec& spec, const std::vector<Series>& series) {
  const double width = 640, height = 360;
  svg::Svg s(width, height, spec.id, spec.title);
  s.text(width / 2, 20, spec.title, "middle", 14, R"(font-weight="bold" fill="#222")");
  double x0 = std::numeric_limits<double>::infinity(), x1 = -x0;
  double y0 = spec.y_min, y1 = spec.y_min;
  for (const auto& se : series) {
    for (double v : se.x) x0 = std::min(x0, v), x1 = std::max(x1, v);
    for (double v : se.y) y0 = std::min(y0, v), y1 = std::max(y1, v);
  }
  for (double h : spec.h_lines) y1 = std::max(y1, h);
  if (!(x1 > x0)) x0 = 0, x1 = 1;
  const auto xt = svg::nice_ticks(x0, x1, 8);
  const auto yt = svg::nice_ticks(y0, y1 > y0 ? y1 : y0 + 1, 6);
  std::vector<svg::LegendItem> items;
  for (size_t i = 0; i < series.size(); ++i) {
    items.push_back({series[i].label, svg::colour(i), svg::LegendItem::Kind::kLine, i});
  }
  const double legend_h = svg::legend(s, 70, 34, width - 90, items);
  const svg::Frame f{70, 40 + legend_h, width - 20, height - 50};
  const svg::Scale xs{xt.front(), xt.back(), f.left, f.right};
  const svg::Scale ys{yt.front(), yt.back(), f.bottom, f.top};
  svg::x_axis(s, f, xs, xt, spec.x_label, spec.x_percent);
  svg::y_axis(s, f, ys, yt, spec.y_label, spec.y_percent);
  for (double h : spec.h_lines) s.line(f.left, ys(h), f.right, ys(h), "#999", 1.0, "4 3");
  for (size_t i = 0; i < series.size(); ++i) {
    const auto& se = series[i];
    std::vector<double> px, py;
    for (size_t j = 0; j < se.x.size() && j < se.y.size(); ++j) {
      if (se.step && j > 0) {
        px.push_back(xs(se.x[j]));
        py.push_back(ys(se.y[j - 1]));
      }
      px.push_back(xs(se.x[j]));
      py.push_back(ys(se.y[j]));
    }
    s.polyline(px, py, svg::colour(i), 2.0, svg::dash(i));
    if (se.markers) {
      for (size_t j = 0; j < se.x.size() && j < se.y.size(); ++j) {
        s.marker(i, xs(se.x[j]), ys(se.y[j]), 3.5, svg::colour(i));
      }
    }
  }
  return s.finish();
}

}  // namespace ntpsim::validate
