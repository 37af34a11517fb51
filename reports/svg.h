// Small SVG drawing kit for the report charts: linear scales, "nice" ticks, axes with unit labels,
// legends, and an element writer that escapes text and rounds coordinates to 0.1 px (so the
// output is stable enough for golden tests).
//
// Colours are the Okabe-Ito palette, distinguishable under the common colour-vision deficiencies;
// charts also vary marker shape or dash so that colour is never the only cue.
// Ownership: `Svg` owns the text it builds. Thread safety: none needed (plain values, no globals).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ntpsim::reports::svg {

// Maps a data interval [d0, d1] to a pixel interval [r0, r1] (either may be decreasing).
struct Scale {
  double d0 = 0.0, d1 = 1.0;
  double r0 = 0.0, r1 = 1.0;
  double operator()(double v) const;
};

// About `target` round tick values (1, 2, 2.5, 5 × 10^k) covering [lo, hi]; lo < hi after
// widening a degenerate interval. The first and last ticks enclose [lo, hi].
std::vector<double> nice_ticks(double lo, double hi, int target);

// Number for a tick or a table: up to `digits` significant digits, no trailing zeros, "–" for NaN.
std::string num(double v, int digits = 4);
// A fraction as a percentage with `decimals` decimals ("97.25"), "–" for NaN.
std::string pct(double fraction, int decimals = 2);

std::string escape(std::string_view text);  // XML/HTML text and attribute escaping

// Okabe-Ito colour i (wrapping); index 0 is blue, never yellow first.
const std::string& colour(size_t i);
// Dash pattern i for lines ("" solid, then dashed, dotted, dash-dot, ...).
const std::string& dash(size_t i);

class Svg {
 public:
  // `id` becomes the root element's id; `title` its accessible name (<title>).
  Svg(double width, double height, std::string id, std::string_view title);

  double width() const { return width_; }
  double height() const { return height_; }

  void line(double x1, double y1, double x2, double y2, std::string_view stroke,
            double stroke_width = 1.0, std::string_view dasharray = "");
  void rect(double x, double y, double w, double h, std::string_view fill,
            std::string_view extra = "");
  void circle(double cx, double cy, double r, std::string_view fill, std::string_view extra = "");
  // Polyline through (xs[i], ys[i]); no fill.
  void polyline(const std::vector<double>& xs, const std::vector<double>& ys,
                std::string_view stroke, double stroke_width, std::string_view dasharray = "");
  void polygon(const std::vector<double>& xs, const std::vector<double>& ys, std::string_view fill,
               double opacity);
  // Marker shapes for scatter/mark rows: 0 circle, 1 triangle-up, 2 square, 3 diamond,
  // 4 triangle-down, 5 cross. `title` (optional) becomes a hover tooltip.
  void marker(size_t shape, double cx, double cy, double r, std::string_view fill,
              std::string_view title = "");
  // anchor: "start" | "middle" | "end". `rotate` in degrees about (x, y).
  void text(double x, double y, std::string_view text, std::string_view anchor = "start",
            double size = 12.0, std::string_view extra = "", double rotate = 0.0);
  void raw(std::string_view markup);

  // The finished document (root <svg> element with xmlns, viewBox, role="img").
  std::string finish() const;

 private:
  double width_;
  double height_;
  std::string id_;
  std::string title_;
  std::string body_;
};

// Plot area inside a chart: pixel bounds of the data region.
struct Frame {
  double left = 0.0, top = 0.0, right = 0.0, bottom = 0.0;
  double width() const { return right - left; }
  double height() const { return bottom - top; }
};

// A bottom x axis with gridlines across the frame, tick labels and an axis label.
void x_axis(Svg& s, const Frame& f, const Scale& x, const std::vector<double>& ticks,
            std::string_view label, bool percent = false);
// A left y axis with gridlines, tick labels and a rotated axis label.
void y_axis(Svg& s, const Frame& f, const Scale& y, const std::vector<double>& ticks,
            std::string_view label, bool percent = false);

struct LegendItem {
  std::string label;
  std::string colour;
  enum class Kind { kSwatch, kLine, kMarker } kind = Kind::kSwatch;
  size_t style = 0;  // dash index for lines, shape index for markers
};
// A horizontal legend starting at (x, y), wrapping at `max_width`; returns the height used.
double legend(Svg& s, double x, double y, double max_width, const std::vector<LegendItem>& items);

}  // namespace ntpsim::reports::svg
