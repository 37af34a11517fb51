// Simulated time: integer microseconds (STYLE.md §2).
//
// `Duration` is a signed span, `Time` a point since the start of a simulation. Both wrap int64
// microseconds (±292,000 years), so event ordering is exact and reproducible; doubles appear only at
// the edges (YAML parsing, cost models, reports) through from_seconds()/seconds().
// Thread safety: plain values.
#pragma once

#include <cmath>
#include <compare>
#include <cstdint>
#include <limits>

namespace ntpsim {

// Seconds in a day (reports, trace spans, rates per node-day).
inline constexpr double kSecondsPerDay = 86400.0;

class Duration {
 public:
  constexpr Duration() = default;
  static constexpr Duration micros(int64_t us) { return Duration(us); }
  static constexpr Duration seconds_i(int64_t s) { return Duration(s * 1'000'000); }
  // Rounds to the nearest microsecond; saturates at max()/−max() for huge or infinite inputs.
  static Duration from_seconds(double s) {
    const double us = std::round(s * 1e6);
    if (!(us < 9.2e18)) return max();
    if (!(us > -9.2e18)) return Duration(-std::numeric_limits<int64_t>::max());
    return Duration(static_cast<int64_t>(us));
  }
  static constexpr Duration hours(double h) { return Duration(static_cast<int64_t>(h * 3.6e9)); }
  static constexpr Duration zero() { return Duration(0); }
  static constexpr Duration max() { return Duration(std::numeric_limits<int64_t>::max()); }

  constexpr int64_t us() const { return us_; }
  constexpr double seconds() const { return static_cast<double>(us_) * 1e-6; }
  constexpr double hours_f() const { return static_cast<double>(us_) / 3.6e9; }

  constexpr auto operator<=>(const Duration&) const = default;
  constexpr Duration operator+(Duration o) const { return Duration(us_ + o.us_); }
  constexpr Duration operator-(Duration o) const { return Duration(us_ - o.us_); }
  constexpr Duration operator-() const { return Duration(-us_); }
  constexpr Duration& operator+=(Duration o) { us_ += o.us_; return *this; }
  constexpr Duration& operator-=(Duration o) { us_ -= o.us_; return *this; }
  constexpr Duration operator*(int64_t k) const { return Duration(us_ * k); }

 private:
  constexpr explicit Duration(int64_t us) : us_(us) {}
  int64_t us_ = 0;
};

class Time {
 public:
  constexpr Time() = default;
  static constexpr Time start() { return Time(); }
  static constexpr Time at(Duration since_start) { return Time(since_start); }
  static constexpr Time never() { return Time(Duration::max()); }

  constexpr Duration since_start() const { return d_; }
  constexpr int64_t us() const { return d_.us(); }
  constexpr double seconds() const { return d_.seconds(); }

  constexpr auto operator<=>(const Time&) const = default;
  constexpr Time operator+(Duration d) const {
    // Saturate so that "never + x" stays never, and so does a sum past it.
    if (d_ == Duration::max() || d == Duration::max()) return never();
    int64_t sum = 0;
    if (__builtin_add_overflow(d_.us(), d.us(), &sum)) return never();
    return Time(Duration::micros(sum));
  }
  constexpr Time& operator+=(Duration d) { *this = *this + d; return *this; }
  constexpr Duration operator-(Time o) const { return d_ - o.d_; }

 private:
  constexpr explicit Time(Duration d) : d_(d) {}
  Duration d_;
};

}  // namespace ntpsim
