// The one parser for quantities with units in ntpsim's YAML and CLI (DESIGN.md §9).
//
// Every function takes the text as written by the user and returns the quantity in SI base units
// (seconds, watts, bytes, bytes per second, events per second per unit, plain fractions), or an
// Error whose message says what was expected. Errors carry no location: callers (the YAML readers)
// prefix file:line:col and the field path.
//
//   duration   "90s" "30min" "3h" "5d" "2w" "1y" (365 d) "250ms" "10us"       -> seconds
//   power      "700W" "1.2kW" "0.12MW"                                         -> watts
//   bandwidth  "400Gb/s" "900GB/s" "1.8TB/s" "100Mb/s" "25GiB/s"               -> bytes/s
//   size       "141GB" "80GiB" "6TB" "512MiB" "1024B"                          -> bytes
//   count      "16M" "15T" "1.5K" "405B"(billions) "1e12" "32768"              -> plain number
//   rate       "1.97e-5/h" "6.5/1000 node-days" "2/GPU-day" "0.1/d"           -> per second, per unit
//   fraction   "30%" "0.3"                                                     -> 0.3
//   energy     "5kWh" "2.1MWh" "1GWh" "3.6MJ"                                  -> joules
// Numbers use the C locale; negative values are rejected except where a function says otherwise.
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "models/base/status.h"

namespace ntpsim::units {

Result<double> parse_duration_s(std::string_view text);
Result<double> parse_power_w(std::string_view text);
Result<double> parse_bandwidth_Bps(std::string_view text);
Result<double> parse_size_bytes(std::string_view text);
Result<double> parse_count(std::string_view text);
Result<double> parse_fraction(std::string_view text);
Result<double> parse_energy_j(std::string_view text);

// A failure rate: events per second per unit, and the unit noun the text named ("node", "GPU",
// or "" when the text gave only a time, as in "1.97e-5/h").
struct Rate {
  double per_second = 0.0;
  std::string unit_noun;
};
Result<Rate> parse_rate(std::string_view text);

// A plain number with no unit ("3", "-1.5e3", "0.25"); rejects trailing text.
Result<double> parse_number(std::string_view text);

// Formatting for resolved output (`ntpsim check`): the largest unit that gives a value >= 1,
// up to 6 significant digits, e.g. 10800 s -> "3h", 90 -> "90s", 1.2e3 W -> "1.2kW".
std::string format_duration(double seconds);
std::string format_power(double watts);
std::string format_bandwidth(double bytes_per_s);
std::string format_size(double bytes);
std::string format_count(double n);
std::string format_fraction(double f);  // "30%"
std::string format_rate(double per_second);  // "1.97e-05/h"
std::string format_energy(double joules);

// Exact formatting for text that is read back (the resolved scenario of `ntpsim check`, hardware
// profiles): the form above when its parser reads it back as exactly `v`, otherwise the shortest
// decimal that does, in the base unit ("560.948123s", "2.5e-07/s", "0.123456789"). Either way
// parse_*(format_*_exact(v)) == v for every finite v >= 0 the parser accepts.
std::string format_duration_exact(double seconds);
std::string format_power_exact(double watts);
std::string format_bandwidth_exact(double bytes_per_s);
std::string format_size_exact(double bytes);
std::string format_count_exact(double n);
std::string format_fraction_exact(double f);
std::string format_rate_exact(double per_second);
// A plain number: up to 6 significant digits when that reads back exactly, else the shortest
// decimal that does.
std::string format_number_exact(double v);

}  // namespace ntpsim::units
