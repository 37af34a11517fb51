// Line charts for docs/VALIDATION.md: one SVG per study, drawn with the reports library's SVG kit
// (reports/svg.h: scales, nice ticks, axes, Okabe-Ito colours, legends).
// Ownership: plain values in, a finished SVG document out. Thread safety: reentrant.
#pragma once

#include <string>
#include <vector>

namespace ntpsim::validate {

struct Series {
  std::string label;
  std::vector<double> x, y;
  bool step = false;    // draw as a step function (value holds until the next x)
  bool markers = true;  // a marker at each point
};

struct ChartSpec {
  std::string id;     // root element id
  std::string title;  // heading inside the chart and accessible name
  std::string x_label, y_label;
  bool x_percent = false, y_percent = false;  // tick labels as percentages of fractions
  double y_min = 0.0;                         // y axis starts here (or lower when data is lower)
  std::vector<double> h_lines;                // horizontal reference lines (e.g. a threshold)
};

std::string line_chart(const ChartSpec& spec, const std::vector<Series>& series);

}  // namespace ntpsim::validate
