#include "models/base/units.h"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <utility>

#include "models/base/time.h"

namespace ntpsim::units {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Splits "12.5kW" into the number 12.5 and the suffix "kW" (trimmed). Fails when no number leads.
bool split_number(std::string_view text, double& value, std::string_view& suffix) {
  text = trim(text);
  if (text.empty()) return false;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  if (*begin == '+') ++begin;
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || ptr == begin) return false;
  if (!std::isfinite(value)) return false;
  suffix = trim(std::string_view(ptr, static_cast<size_t>(end - ptr)));
  return true;
}

struct UnitFactor {
  std::string_view name;
  double factor;
};

template <size_t N>
Result<double> parse_with(std::string_view text, const std::array<UnitFactor, N>& table,
                          std::string_view what, std::string_view examples, bool bare_ok,
                          double bare_factor = 1.0) {
  double v = 0;
  std::string_view suffix;
  if (!split_number(text, v, suffix)) {
    return Error::bad_input(
        fmt::format("expected a {} such as {}, got \"{}\"", what, examples, text));
  }
  if (v < 0) return Error::bad_input(fmt::format("{} must not be negative, got \"{}\"", what, text));
  if (suffix.empty()) {
    if (bare_ok) return v * bare_factor;
    return Error::bad_input(
        fmt::format("{} \"{}\" needs a unit, e.g. {}", what, text, examples));
  }
  for (const auto& u : table) {
    if (suffix != u.name) continue;
    // A huge number times a large unit overflows; infinity is never a usable quantity.
    if (!std::isfinite(v * u.factor)) {
      return Error::bad_input(fmt::format("{} \"{}\" is too large", what, text));
    }
    return v * u.factor;
  }
  return Error::bad_input(
      fmt::format("unknown {} unit \"{}\" in \"{}\" (use e.g. {})", what, suffix, text, examples));
}


constexpr std::array<UnitFactor, 17> kDurationUnits{{
    {"us", 1e-6}, {"ms", 1e-3}, {"s", 1.0}, {"sec", 1.0}, {"min", 60.0}, {"m", 60.0},
    {"h", 3600.0}, {"hr", 3600.0}, {"hour", 3600.0}, {"hours", 3600.0}, {"d", kSecondsPerDay},
    {"day", kSecondsPerDay}, {"days", kSecondsPerDay}, {"w", 7 * kSecondsPerDay}, {"week", 7 * kSecondsPerDay}, {"y", 365 * kSecondsPerDay},
    {"year", 365 * kSecondsPerDay},
}};

}  // namespace

Result<double> parse_number(std::string_view text) {
  double v = 0;
  std::string_view suffix;
  const std::string_view t = trim(text);
  const char* begin = t.data();
  const char* end = t.data() + t.size();
  if (t.empty()) return Error::bad_input("expected a number, got an empty value");
  bool neg = false;
  if (*begin == '-') {
    neg = true;
    ++begin;
  }
  if (!split_number(std::string_view(begin, static_cast<size_t>(end - begin)), v, suffix) ||
      !suffix.empty()) {
    return Error::bad_input(fmt::format("expected a number, got \"{}\"", text));
  }
  return neg ? -v : v;
}

Result<double> parse_duration_s(std::string_view text) {
  return parse_with(text, kDurationUnits, "duration", "\"90s\", \"30min\", \"3h\", \"5d\", \"1y\"",
                    false);
}

Result<double> parse_power_w(std::string_view text) {
  static constexpr std::array<UnitFactor, 4> kUnits{
      {{"W", 1.0}, {"kW", 1e3}, {"MW", 1e6}, {"GW", 1e9}}};
  return parse_with(text, kUnits, "power", "\"700W\", \"1.2kW\"", false);
}

Result<double> parse_bandwidth_Bps(std::string_view text) {
  static constexpr std::array<UnitFactor, 16> kUnits{{
      {"B/s", 1.0}, {"KB/s", 1e3}, {"MB/s", 1e6}, {"GB/s", 1e9}, {"TB/s", 1e12},
      {"KiB/s", 1024.0}, {"MiB/s", 1048576.0}, {"GiB/s", 1073741824.0},
      {"TiB/s", 1099511627776.0}, {"b/s", 0.125}, {"Kb/s", 125.0}, {"Mb/s", 1.25e5},
      {"Gb/s", 1.25e8}, {"Tb/s", 1.25e11}, {"Gbps", 1.25e8}, {"Mbps", 1.25e5},
  }};
  return parse_with(text, kUnits, "bandwidth", "\"400Gb/s\", \"900GB/s\"", false);
}

Result<double> parse_size_bytes(std::string_view text) {
  static constexpr std::array<UnitFactor, 11> kUnits{{
      {"B", 1.0}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"PB", 1e15},
      {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}, {"TiB", 1099511627776.0},
      {"PiB", 1125899906842624.0},
  }};
  return parse_with(text, kUnits, "size", "\"141GB\", \"80GiB\"", false);
}

Result<double> parse_count(std::string_view text) {
  // "B" means billions here (parameter counts: "405B"); sizes in bytes use parse_size_bytes.
  static constexpr std::array<UnitFactor, 5> kUnits{
      {{"K", 1e3}, {"M", 1e6}, {"B", 1e9}, {"G", 1e9}, {"T", 1e12}}};
  return parse_with(text, kUnits, "count", "\"16M\", \"15T\", \"32768\"", true);
}

Result<double> parse_fraction(std::string_view text) {
  double v = 0;
  std::string_view suffix;
  if (!split_number(text, v, suffix)) {
    return Error::bad_input(fmt::format("expected a fraction such as \"30%\" or 0.3, got \"{}\"", text));
  }
  if (suffix == "%") v /= 100.0;
  else if (!suffix.empty())
    return Error::bad_input(fmt::format("expected a fraction such as \"30%\" or 0.3, got \"{}\"", text));
  if (v < 0) return Error::bad_input(fmt::format("fraction must not be negative, got \"{}\"", text));
  return v;
}

Result<double> parse_energy_j(std::string_view text) {
  static constexpr std::array<UnitFactor, 8> kUnits{{
      {"J", 1.0}, {"kJ", 1e3}, {"MJ", 1e6}, {"GJ", 1e9}, {"Wh", 3600.0}, {"kWh", 3.6e6},
      {"MWh", 3.6e9}, {"GWh", 3.6e12},
  }};
  return parse_with(text, kUnits, "energy", "\"5kWh\", \"2.1MWh\"", false);
}

Result<Rate> parse_rate(std::string_view text) {
  // Forms: "<x>/<time>", "<x>/<unit>-<time>", "<x>/<n> <unit>-<time>s".
  const std::string_view t = trim(text);
  const auto bad = [&] {
    return Error::bad_input(fmt::format(
        "expected a rate such as \"1.97e-5/h\", \"2/GPU-day\" or \"6.5/1000 node-days\", got \"{}\"",
        text));
  };
  const size_t slash = t.find('/');
  if (slash == std::string_view::npos) return bad();
  double count = 0;
  std::string_view rest;
  if (!split_number(t.substr(0, slash), count, rest) || !rest.empty()) return bad();
  if (count < 0) return Error::bad_input(fmt::format("rate must not be negative, got \"{}\"", text));
  std::string_view denom = trim(t.substr(slash + 1));
  double per = 1.0;
  if (!denom.empty() && (std::isdigit(static_cast<unsigned char>(denom.front())) || denom.front() == '.')) {
    std::string_view after;
    if (!split_number(denom, per, after) || per <= 0) return bad();
    denom = after;
  }
  Rate rate;
  std::string_view time_unit = denom;
  const size_t dash = denom.rfind('-');
  if (dash != std::string_view::npos) {
    rate.unit_noun = std::string(trim(denom.substr(0, dash)));
    time_unit = trim(denom.substr(dash + 1));
    if (rate.unit_noun.empty()) return bad();
  }
  // Accept plural time units ("node-days", "GPU-hours").
  std::string tu(time_unit);
  double secs = 0;
  for (const auto& u : kDurationUnits) {
    if (tu == u.name) secs = u.factor;
  }
  if (secs == 0 && tu.size() > 1 && tu.back() == 's') {
    tu.pop_back();
    for (const auto& u : kDurationUnits) {
      if (tu == u.name) secs = u.factor;
    }
  }
  if (secs == 0) return bad();
  rate.per_second = count / (per * secs);
  // A tiny denominator ("1/1e-320 s") overflows; infinity is never a usable rate.
  if (!std::isfinite(rate.per_second)) {
    return Error::bad_input(fmt::format("rate \"{}\" is too large", text));
  }
  return rate;
}

namespace {

// Formats v / factor with up to 6 significant digits and no trailing zeros.
std::string compact(double v) {
  std::string s = fmt::format("{:.6g}", v);
  return s;
}

template <size_t N>
std::string format_with(double v, const std::array<UnitFactor, N>& ascending) {
  if (v == 0) return fmt::format("0{}", ascending[0].name);
  const UnitFactor* best = &ascending[0];
  for (const auto& u : ascending) {
    if (std::fabs(v) >= u.factor) best = &u;
  }
  return compact(v / best->factor) + std::string(best->name);
}

}  // namespace

std::string format_duration(double seconds) {
  // Prefer exact representations: 5400 s prints as "90min", not "1.5h".
  static constexpr std::array<UnitFactor, 7> kUnits{{
      {"us", 1e-6}, {"ms", 1e-3}, {"s", 1.0}, {"min", 60.0}, {"h", 3600.0}, {"d", kSecondsPerDay},
      {"y", 365 * kSecondsPerDay},
  }};
  if (seconds == 0) return "0s";
  for (size_t i = kUnits.size(); i-- > 0;) {
    const double q = seconds / kUnits[i].factor;
    // Exact in this unit and short: "330688ms" or "3.30688e+08us" read worse than "5.51min".
    if (std::fabs(q) >= 1 && std::fabs(q) < 1e4 &&
        std::fabs(q - std::round(q)) < 1e-9 * std::fabs(q)) {
      return compact(std::round(q)) + std::string(kUnits[i].name);
    }
  }
  return format_with(seconds, kUnits);
}

std::string format_power(double watts) {
  static constexpr std::array<UnitFactor, 3> kUnits{{{"W", 1.0}, {"kW", 1e3}, {"MW", 1e6}}};
  return format_with(watts, kUnits);
}

std::string format_bandwidth(double bytes_per_s) {
  static constexpr std::array<UnitFactor, 5> kUnits{
      {{"B/s", 1.0}, {"KB/s", 1e3}, {"MB/s", 1e6}, {"GB/s", 1e9}, {"TB/s", 1e12}}};
  return format_with(bytes_per_s, kUnits);
}

std::string format_size(double bytes) {
  static constexpr std::array<UnitFactor, 6> kUnits{
      {{"B", 1.0}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"PB", 1e15}}};
  return format_with(bytes, kUnits);
}

std::string format_count(double n) {
  static constexpr std::array<UnitFactor, 5> kUnits{
      {{"", 1.0}, {"K", 1e3}, {"M", 1e6}, {"B", 1e9}, {"T", 1e12}}};
  if (std::fabs(n) < 1e4 && n == std::round(n)) return compact(n);
  return format_with(n, kUnits);
}

std::string format_fraction(double f) {
  // Beyond about 1e306 the percentage overflows: print the plain number, which parses back.
  if (!std::isfinite(f * 100.0)) return compact(f);
  return compact(f * 100.0) + "%";
}

std::string format_rate(double per_second) {
  // Per hour unless that overflows a double (rates above ~5e304/s), then per second.
  const double per_hour = per_second * 3600.0;
  if (!std::isfinite(per_hour)) return fmt::format("{:.6g}/s", per_second);
  return fmt::format("{:.6g}/h", per_hour);
}

std::string format_energy(double joules) {
  static constexpr std::array<UnitFactor, 4> kUnits{
      {{"J", 1.0}, {"kWh", 3.6e6}, {"MWh", 3.6e9}, {"GWh", 3.6e12}}};
  return format_with(joules, kUnits);
}

namespace {

// `pretty` when `parse` reads it back as exactly `v`; otherwise the shortest text, over the units
// of `ascending` that give a value >= 1 and the first unit (factor 1, always exact), of the
// shortest decimal of v / factor ({fmt}'s default for doubles) followed by the unit, among those
// that read back as `v` (ties: the larger unit).
template <typename Parse, size_t N>
std::string exact_form(std::string pretty, double v, Parse parse,
                       const std::array<UnitFactor, N>& ascending) {
  if (const auto back = parse(pretty); back.ok() && *back == v) return pretty;
  std::string best = fmt::format("{}{}", v, ascending[0].name);
  for (size_t i = N; i-- > 1;) {
    const double q = v / ascending[i].factor;
    if (!(std::fabs(q) >= 1)) continue;
    std::string text = fmt::format("{}{}", q, ascending[i].name);
    if (text.size() >= best.size()) continue;
    if (const auto back = parse(text); back.ok() && *back == v) best = std::move(text);
  }
  return best;
}

}  // namespace

std::string format_duration_exact(double seconds) {
  static constexpr std::array<UnitFactor, 7> kUnits{{
      {"s", 1.0},
      {"us", 1e-6},
      {"ms", 1e-3},
      {"min", 60.0},
      {"h", 3600.0},
      {"d", kSecondsPerDay},
      {"y", 365 * kSecondsPerDay},
  }};
  return exact_form(format_duration(seconds), seconds, parse_duration_s, kUnits);
}

std::string format_power_exact(double watts) {
  static constexpr std::array<UnitFactor, 3> kUnits{{{"W", 1.0}, {"kW", 1e3}, {"MW", 1e6}}};
  return exact_form(format_power(watts), watts, parse_power_w, kUnits);
}

std::string format_bandwidth_exact(double bytes_per_s) {
  static constexpr std::array<UnitFactor, 5> kUnits{
      {{"B/s", 1.0}, {"KB/s", 1e3}, {"MB/s", 1e6}, {"GB/s", 1e9}, {"TB/s", 1e12}}};
  return exact_form(format_bandwidth(bytes_per_s), bytes_per_s, parse_bandwidth_Bps, kUnits);
}

std::string format_size_exact(double bytes) {
  // Binary units too: a capacity given as the device reports it ("81559MiB") prints as given.
  static constexpr std::array<UnitFactor, 10> kUnits{{{"B", 1.0},
                                                      {"KB", 1e3},
                                                      {"KiB", 1024.0},
                                                      {"MB", 1e6},
                                                      {"MiB", 1048576.0},
                                                      {"GB", 1e9},
                                                      {"GiB", 1073741824.0},
                                                      {"TB", 1e12},
                                                      {"TiB", 1099511627776.0},
                                                      {"PB", 1e15}}};
  return exact_form(format_size(bytes), bytes, parse_size_bytes, kUnits);
}

std::string format_count_exact(double n) {
  static constexpr std::array<UnitFactor, 5> kUnits{
      {{"", 1.0}, {"K", 1e3}, {"M", 1e6}, {"B", 1e9}, {"T", 1e12}}};
  return exact_form(format_count(n), n, parse_count, kUnits);
}

std::string format_fraction_exact(double f) {
  // "%" divides by 100 when read; its factor here is what one unit of the text is worth.
  static constexpr std::array<UnitFactor, 2> kUnits{{{"", 1.0}, {"%", 0.01}}};
  return exact_form(format_fraction(f), f, parse_fraction, kUnits);
}

std::string format_rate_exact(double per_second) {
  const auto parse = [](std::string_view t) -> Result<double> {
    auto r = parse_rate(t);
    if (!r.ok()) return r.error();
    return r->per_second;
  };
  // Per hour first, as format_rate writes rates, whatever the magnitude ("1.23456789e-05/h").
  if (std::string text = fmt::format("{}/h", per_second * 3600.0);
      parse(text).ok() && *parse(text) == per_second) {
    return text;
  }
  static constexpr std::array<UnitFactor, 1> kUnits{{{"/s", 1.0}}};
  return exact_form(format_rate(per_second), per_second, parse, kUnits);
}

std::string format_number_exact(double v) {
  static constexpr std::array<UnitFactor, 1> kUnits{{{"", 1.0}}};
  return exact_form(compact(v), v, parse_number, kUnits);
}

}  // namespace ntpsim::units
