#include "tools/ntpsim/progress_display.h"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>

namespace ntpsim::cli {
namespace {

// Rates are not shown before this much time has passed: the first replications' times say
// little about the rest (thread start, the first failures drawn).
constexpr double kMinRateElapsedS = 0.5;
constexpr int kBarWidth = 20;

// "3.1/s" at one or more per second, else "1 per 21.3 s" (or "1 per 2:05" past 100 s).
std::string format_rate(double per_s) {
  if (per_s >= 1) return fmt::format("{:.3g}/s", per_s);
  const double each = 1 / per_s;
  return each < 100 ? fmt::format("1 per {:.3g} s", each)
                    : fmt::format("1 per {}", format_duration(each));
}

}  // namespace

double progress_fraction(const ProgressState& s) {
  if (s.total <= 0) return 0;
  double units = static_cast<double>(std::min(s.done, s.total));
  if (s.inner_total > 0 && s.done < s.total) {
    units += static_cast<double>(std::clamp<int64_t>(s.inner_done, 0, s.inner_total)) /
             static_cast<double>(s.inner_total);
  }
  return std::clamp(units / static_cast<double>(s.total), 0.0, 1.0);
}

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "--:--";
  const auto t = static_cast<int64_t>(std::llround(seconds));
  const int64_t d = t / 86400, h = t % 86400 / 3600, m = t % 3600 / 60, s = t % 60;
  if (d > 0) return fmt::format("{}d {:02}:{:02}:{:02}", d, h, m, s);
  if (h > 0) return fmt::format("{}:{:02}:{:02}", h, m, s);
  return fmt::format("{}:{:02}", m, s);
}

std::string format_progress(const ProgressState& s, double elapsed_s, int width) {
  width = std::max(width, 20);
  std::string line = s.label + ": ";
  if (s.total > 0) {
    line += s.total_is_bound ? fmt::format("{} of at most {} {}", s.done, s.total, s.unit)
                             : fmt::format("{}/{} {}", s.done, s.total, s.unit);
  } else {
    line += fmt::format("{} {}", s.done, s.unit);
  }
  if (s.inner_total > 0) {
    line += fmt::format(", {} {}/{}", s.inner_unit, s.inner_done, s.inner_total);
  }
  const double fraction = progress_fraction(s);
  if (s.total > 0) {
    const int filled = static_cast<int>(std::floor(fraction * kBarWidth));
    line += fmt::format(" [{}{}]", std::string(static_cast<size_t>(filled), '#'),
                        std::string(static_cast<size_t>(kBarWidth - filled), ' '));
  }
  // Work run in this process, in units: what the rate and the ETA are measured on.
  const double worked = fraction * static_cast<double>(s.total) - static_cast<double>(s.skipped);
  const bool measured = elapsed_s >= kMinRateElapsedS && worked > 0;
  const double rate = measured ? worked / elapsed_s : 0;
  if (measured) {
    line += ' ';
    line += format_rate(rate);
  }
  line += "  elapsed ";
  line += format_duration(elapsed_s);
  if (s.total > 0) {
    const double remaining = (1 - fraction) * static_cast<double>(s.total);
    line += "  ETA ";
    line += remaining <= 0 ? format_duration(0)
            : measured     ? format_duration(remaining / rate)
                           : std::string("--:--");
  }
  if (!s.detail.empty()) {
    line += "  ";
    line += s.detail;
  }
  if (static_cast<int>(line.size()) > width) {
    line.resize(static_cast<size_t>(width - 3));
    line += "...";
  }
  return line;
}

bool progress_wanted(bool quiet, bool printing_process) {
  return !quiet && printing_process && isatty(fileno(stderr)) != 0;
}

ProgressDisplay::ProgressDisplay(std::string label, std::string unit, bool enabled)
    : ProgressDisplay(std::move(label), std::move(unit), [enabled] {
        Options o;
        o.enabled = enabled;
        return o;
      }()) {}

ProgressDisplay::ProgressDisplay(std::string label, std::string unit, Options options)
    : opts_(std::move(options)) {
  if (!opts_.clock) {
    opts_.clock = [] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
          .count();
    };
  }
  state_.label = std::move(label);
  state_.unit = std::move(unit);
  start_s_ = opts_.clock();
  if (opts_.enabled && opts_.refresh_s > 0) {
    ticker_ = std::thread([this] {
      std::unique_lock<std::mutex> lock(mu_);
      while (!finished_) {
        wake_.wait_for(lock, std::chrono::duration<double>(opts_.refresh_s),
                       [this] { return finished_; });
        if (!finished_) draw_locked(true);
      }
    });
  }
}

ProgressDisplay::~ProgressDisplay() {
  finish();
}

void ProgressDisplay::set_total(int64_t total, bool is_bound) {
  std::lock_guard<std::mutex> lock(mu_);
  state_.total = total;
  state_.total_is_bound = is_bound;
  draw_locked(true);
}

void ProgressDisplay::set_done(int64_t done) {
  std::lock_guard<std::mutex> lock(mu_);
  if (done <= state_.done) return;
  state_.done = done;
  draw_locked(false);
}

void ProgressDisplay::update(int64_t done, int64_t total) {
  std::lock_guard<std::mutex> lock(mu_);
  state_.total = total;
  state_.done = std::max(state_.done, done);
  draw_locked(false);
}

void ProgressDisplay::set_skipped(int64_t skipped) {
  std::lock_guard<std::mutex> lock(mu_);
  state_.skipped = std::max(state_.skipped, skipped);
}

void ProgressDisplay::advance(bool skipped) {
  std::lock_guard<std::mutex> lock(mu_);
  ++state_.done;
  if (skipped) ++state_.skipped;
  draw_locked(true);
}

void ProgressDisplay::set_inner(int64_t done, int64_t total) {
  std::lock_guard<std::mutex> lock(mu_);
  state_.inner_total = total;
  state_.inner_done = std::max(state_.inner_done, done);
  draw_locked(false);
}

void ProgressDisplay::reset_inner(std::string inner_unit) {
  std::lock_guard<std::mutex> lock(mu_);
  state_.inner_unit = std::move(inner_unit);
  state_.inner_done = 0;
  state_.inner_total = 0;
}

void ProgressDisplay::set_detail(std::string detail) {
  std::lock_guard<std::mutex> lock(mu_);
  state_.detail = std::move(detail);
  draw_locked(true);
}

void ProgressDisplay::print_line(const std::string& line) {
  std::lock_guard<std::mutex> lock(mu_);
  erase_locked();
  std::fputs((line + "\n").c_str(), opts_.out);
  draw_locked(true);
}

void ProgressDisplay::finish() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (finished_) return;
    erase_locked();
    finished_ = true;
  }
  wake_.notify_all();
  if (ticker_.joinable()) ticker_.join();
}

ProgressState ProgressDisplay::state() const {
  std::lock_guard<std::mutex> lock(mu_);
  return state_;
}

void ProgressDisplay::draw_locked(bool force) {
  if (!opts_.enabled || finished_) return;
  const double now = opts_.clock();
  if (!force && drawn_ && now - last_draw_s_ < opts_.min_redraw_s) return;
  // "\r" back to the line's start, the text, then erase what a longer earlier line left.
  std::string text = "\r";
  text += format_progress(state_, now - start_s_, width_locked());
  text += "\x1b[K";
  std::fputs(text.c_str(), opts_.out);
  std::fflush(opts_.out);
  drawn_ = true;
  last_draw_s_ = now;
}

void ProgressDisplay::erase_locked() {
  if (!drawn_) return;
  std::fputs("\r\x1b[K", opts_.out);
  std::fflush(opts_.out);
  drawn_ = false;
}

int ProgressDisplay::width_locked() const {
  if (opts_.width > 0) return opts_.width;
  winsize ws{};
  if (ioctl(fileno(opts_.out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) {
    return ws.ws_col - 1;  // the last column would wrap on some terminals
  }
  return 79;
}

void print_written(const std::vector<std::string>& paths, bool quiet) {
  if (quiet) return;
  for (const auto& p : paths) {
    if (!p.empty()) std::fprintf(stderr, "ntpsim: wrote %s\n", p.c_str());
  }
}

}  // namespace ntpsim::cli
