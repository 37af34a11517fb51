#include "reports/svg.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>

#include "models/base/check.h"

namespace ntpsim::reports::svg {
namespace {

// Coordinates rounded to 0.1 px; "-0" printed as "0" so goldens do not flip on sign of zero.
std::string c(double v) {
  const double r = std::round(v * 10.0) / 10.0;
  if (r == 0.0) return "0";
  return fmt::format("{:g}", r);
}

// Rough text width for layout (no font metrics in C++): 0.58 em per character.
double text_width(std::string_view text, double size) {
  return 0.58 * size * static_cast<double>(text.size());
}

}  // namespace

double Scale::operator()(double v) const {
  if (d1 == d0) return (r0 + r1) / 2.0;
  return r0 + (v - d0) * (r1 - r0) / (d1 - d0);
}

std::vector<double> nice_ticks(double lo, double hi, int target) {
  NTPSIM_CHECK(target >= 2);
  if (!std::isfinite(lo) || !std::isfinite(hi)) return {0.0, 1.0};
  if (hi < lo) std::swap(lo, hi);
  if (hi == lo) {
    const double pad = lo == 0.0 ? 1.0 : std::fabs(lo) * 0.1;
    lo -= pad;
    hi += pad;
  }
  const double raw = (hi - lo) / target;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    step = m * mag;
    if (step >= raw) break;
  }
  const double first = std::floor(lo / step + 1e-9) * step;
  const double last = std::ceil(hi / step - 1e-9) * step;
  // Ticks as k * step, each snapped to the nearest double of its short decimal form so that
  // labels and goldens read "0.6", not "0.6000000000000001".
  const int decimals = std::max(0, 1 - static_cast<int>(std::floor(std::log10(step))));
  const auto k0 = static_cast<int64_t>(std::llround(first / step));
  const auto k1 = static_cast<int64_t>(std::llround(last / step));
  std::vector<double> ticks;
  for (int64_t k = k0; k <= k1; ++k) {
    const std::string text = fmt::format("{:.{}f}", static_cast<double>(k) * step, decimals);
    ticks.push_back(std::strtod(text.c_str(), nullptr));
  }
  return ticks;
}

std::string num(double v, int digits) {
  if (std::isnan(v)) return "–";
  if (std::isinf(v)) return v > 0 ? "∞" : "-∞";
  if (v == 0.0) return "0";
  const double a = std::fabs(v);
  std::string s;
  if (a >= 1e7 || a < 1e-4) {
    s = fmt::format("{:.{}e}", v, digits - 1);
    // Trim mantissa zeros: 1.500e+07 -> 1.5e+07.
    const size_t e = s.find('e');
    std::string mant = s.substr(0, e);
    if (mant.find('.') != std::string::npos) {
      while (mant.back() == '0') mant.pop_back();
      if (mant.back() == '.') mant.pop_back();
    }
    return mant + s.substr(e);
  }
  const int int_digits = a >= 1.0 ? static_cast<int>(std::floor(std::log10(a))) + 1 : 0;
  int decimals = std::max(0, digits - int_digits);
  if (a < 1.0) decimals = digits - static_cast<int>(std::floor(std::log10(a))) - 1;
  s = fmt::format("{:.{}f}", v, decimals);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  if (s == "-0") s = "0";
  return s;
}

std::string pct(double fraction, int decimals) {
  if (std::isnan(fraction)) return "–";
  std::string s = fmt::format("{:.{}f}", fraction * 100.0, decimals);
  if (s.rfind("-0.", 0) == 0 && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);
  return s;
}

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += ch;
    }
  }
  return out;
}

const std::string& colour(size_t i) {
  // Okabe & Ito (2008), "Color Universal Design"; yellow last (poor contrast on white).
  static const std::vector<std::string> kPalette = {
      // NOLINT: immutable table
      "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#000000", "#F0E442"};
  return kPalette[i % kPalette.size()];
}

const std::string& dash(size_t i) {
  static const std::vector<std::string> kDash = {// NOLINT: immutable table
                                                 "", "6 3", "2 2", "8 3 2 3", "4 4", "1 3"};
  return kDash[i % kDash.size()];
}

Svg::Svg(double width, double height, std::string id, std::string_view title)
    : width_(width), height_(height), id_(std::move(id)), title_(title) {}

void Svg::line(double x1, double y1, double x2, double y2, std::string_view stroke,
               double stroke_width, std::string_view dasharray) {
  body_ += fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="{}")",
                       c(x1), c(y1), c(x2), c(y2), stroke, c(stroke_width));
  if (!dasharray.empty()) body_ += fmt::format(R"( stroke-dasharray="{}")", dasharray);
  body_ += "/>\n";
}

void Svg::rect(double x, double y, double w, double h, std::string_view fill,
               std::string_view extra) {
  body_ += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="{}")", c(x), c(y),
                       c(std::max(0.0, w)), c(std::max(0.0, h)), fill);
  if (!extra.empty()) body_ += fmt::format(" {}", extra);
  body_ += "/>\n";
}

void Svg::circle(double cx, double cy, double r, std::string_view fill, std::string_view extra) {
  body_ += fmt::format(R"(<circle cx="{}" cy="{}" r="{}" fill="{}")", c(cx), c(cy), c(r), fill);
  if (!extra.empty()) body_ += fmt::format(" {}", extra);
  body_ += "/>\n";
}

void Svg::polyline(const std::vector<double>& xs, const std::vector<double>& ys,
                   std::string_view stroke, double stroke_width, std::string_view dasharray) {
  NTPSIM_CHECK(xs.size() == ys.size());
  if (xs.empty()) return;
  std::string pts;
  for (size_t i = 0; i < xs.size(); ++i)
    pts += fmt::format("{}{},{}", i ? " " : "", c(xs[i]), c(ys[i]));
  body_ += fmt::format(
      R"(<polyline points="{}" fill="none" stroke="{}" stroke-width="{}" stroke-linejoin="round")",
      pts, stroke, c(stroke_width));
  if (!dasharray.empty()) body_ += fmt::format(R"( stroke-dasharray="{}")", dasharray);
  body_ += "/>\n";
}

void Svg::polygon(const std::vector<double>& xs, const std::vector<double>& ys,
                  std::string_view fill, double opacity) {
  NTPSIM_CHECK(xs.size() == ys.size());
  if (xs.empty()) return;
  std::string pts;
  for (size_t i = 0; i < xs.size(); ++i)
    pts += fmt::format("{}{},{}", i ? " " : "", c(xs[i]), c(ys[i]));
  body_ += fmt::format(R"(<polygon points="{}" fill="{}" fill-opacity="{}" stroke="none"/>)", pts,
                       fill, fmt::format("{:g}", opacity));
  body_ += "\n";
}

void Svg::marker(size_t shape, double cx, double cy, double r, std::string_view fill,
                 std::string_view title) {
  const std::string tip =
      title.empty() ? std::string() : fmt::format("<title>{}</title>", escape(title));
  const std::string open = tip.empty() ? "/>" : ">" + tip;
  auto close = [&](const char* tag) {
    return tip.empty() ? std::string() : fmt::format("</{}>", tag);
  };
  switch (shape % 6) {
    case 0:
      body_ += fmt::format(R"(<circle cx="{}" cy="{}" r="{}" fill="{}"{}{})", c(cx), c(cy), c(r),
                           fill, open, close("circle"));
      break;
    case 1:
    case 4: {
      const double s = shape % 6 == 1 ? 1.0 : -1.0;
      body_ += fmt::format(R"(<polygon points="{},{} {},{} {},{}" fill="{}"{}{})", c(cx),
                           c(cy - s * r), c(cx - r), c(cy + s * r), c(cx + r), c(cy + s * r), fill,
                           open, close("polygon"));
      break;
    }
    case 2:
      body_ += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="{}"{}{})",
                           c(cx - r * 0.85), c(cy - r * 0.85), c(r * 1.7), c(r * 1.7), fill, open,
                           close("rect"));
      break;
    case 3:
      body_ += fmt::format(R"(<polygon points="{},{} {},{} {},{} {},{}" fill="{}"{}{})", c(cx),
                           c(cy - r), c(cx + r), c(cy), c(cx), c(cy + r), c(cx - r), c(cy), fill,
                           open, close("polygon"));
      break;
    default:
      body_ += fmt::format(
          R"(<path d="M{} {}L{} {}M{} {}L{} {}" stroke="{}" stroke-width="2" fill="none"{}{})",
          c(cx - r), c(cy - r), c(cx + r), c(cy + r), c(cx - r), c(cy + r), c(cx + r), c(cy - r),
          fill, open, close("path"));
  }
  body_ += "\n";
}

void Svg::text(double x, double y, std::string_view text, std::string_view anchor, double size,
               std::string_view extra, double rotate) {
  body_ += fmt::format(R"(<text x="{}" y="{}" font-size="{}")", c(x), c(y), c(size));
  if (anchor != "start") body_ += fmt::format(R"( text-anchor="{}")", anchor);
  if (rotate != 0.0)
    body_ += fmt::format(R"x( transform="rotate({} {} {})")x", c(rotate), c(x), c(y));
  if (!extra.empty()) body_ += fmt::format(" {}", extra);
  body_ += fmt::format(">{}</text>\n", escape(text));
}

void Svg::raw(std::string_view markup) {
  body_ += markup;
}

std::string Svg::finish() const {
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"{}\" class=\"chart\" width=\"{}\" "
      "height=\"{}\" viewBox=\"0 0 {} {}\" role=\"img\" aria-labelledby=\"{}-title\" "
      "font-family=\"system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif\">\n"
      "<title id=\"{}-title\">{}</title>\n{}</svg>\n",
      escape(id_), c(width_), c(height_), c(width_), c(height_), escape(id_), escape(id_),
      escape(title_), body_);
}

void x_axis(Svg& s, const Frame& f, const Scale& x, const std::vector<double>& ticks,
            std::string_view label, bool percent) {
  for (double t : ticks) {
    const double px = x(t);
    s.line(px, f.top, px, f.bottom, "#e3e3e3");
    s.line(px, f.bottom, px, f.bottom + 5, "#555");
    s.text(px, f.bottom + 18, percent ? num(t * 100.0, 3) : num(t), "middle", 11, R"(fill="#333")");
  }
  s.line(f.left, f.bottom, f.right, f.bottom, "#555");
  s.text((f.left + f.right) / 2.0, f.bottom + 36, label, "middle", 12, R"(fill="#222")");
}

void y_axis(Svg& s, const Frame& f, const Scale& y, const std::vector<double>& ticks,
            std::string_view label, bool percent) {
  for (double t : ticks) {
    const double py = y(t);
    s.line(f.left, py, f.right, py, "#e3e3e3");
    s.line(f.left - 5, py, f.left, py, "#555");
    s.text(f.left - 8, py + 4, percent ? num(t * 100.0, 3) : num(t), "end", 11, R"(fill="#333")");
  }
  s.line(f.left, f.top, f.left, f.bottom, "#555");
  s.text(f.left - 52, (f.top + f.bottom) / 2.0, label, "middle", 12, R"(fill="#222")", -90.0);
}

double legend(Svg& s, double x, double y, double max_width, const std::vector<LegendItem>& items) {
  double cx = x;
  double cy = y;
  const double row = 18.0;
  for (const auto& item : items) {
    const double w = 22.0 + text_width(item.label, 12) + 16.0;
    if (cx > x && cx + w > x + max_width) {
      cx = x;
      cy += row;
    }
    switch (item.kind) {
      case LegendItem::Kind::kSwatch:
        s.rect(cx, cy - 9, 14, 12, item.colour);
        break;
      case LegendItem::Kind::kLine:
        s.line(cx, cy - 3, cx + 16, cy - 3, item.colour, 2.5, dash(item.style));
        break;
      case LegendItem::Kind::kMarker:
        s.marker(item.style, cx + 7, cy - 3, 5, item.colour);
        break;
    }
    s.text(cx + 22, cy + 1, item.label, "start", 12, R"(fill="#222")");
    cx += w;
  }
  return cy - y + row;
}

}  // namespace ntpsim::reports::svg
