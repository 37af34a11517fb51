// The progress line of ntpsim's long commands (run, sweep, plan; any command with countable work),
// redrawn in place on a terminal's stderr:
//
//   run: 12/20 replications [######      ] 3.1/s  elapsed 0:04  ETA 0:03
//   sweep: 2/4 points, replication 13/20 [###    ] 21 s each  elapsed 0:40  ETA 1:21
//   plan: 3/12 finalists, replication 5/8 [##    ] 9.8 s each  elapsed 0:29  ETA 1:50  ntp 448+2
//   ...
//
// Shown only when it helps a person: stderr is a terminal and the command was not given -q (see
// progress_wanted); otherwise the display draws nothing, so a piped or logged run gets no
// carriage-return noise and no per-item lines. Messages the command prints meanwhile (notes) go
// through print_line, which clears the line, prints the message and redraws.
//
// The text is a pure function (format_progress) of the counts and the elapsed time, tested without
// a clock. The rate counts only work done in this process: items taken from a --resume file
// (`skip`) are shown as done but do not speed up the rate or shorten the ETA. ETA = the remaining
// fraction of the work at the rate so far; with an inner count (replications of the point being
// run) the fraction includes the inner progress.
//
// Thread safety: every member function may be called from any thread (one mutex); the Monte Carlo
// workers call set_inner through the replication progress callback. The display reads no
// simulation state and changes none, so results are identical with and without it.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace ntpsim::cli {

// What the line reports.
struct ProgressState {
  std::string label;            // the command: "run"
  std::string unit;             // what is counted, plural: "replications"
  int64_t done = 0;             // finished units (including `skipped`)
  int64_t total = 0;            // units in all; 0 while unknown
  bool total_is_bound = false;  // `total` is an upper bound (plan finalists): shown as "at most"
  int64_t skipped = 0;          // finished units taken from a progress file, not run now
  std::string inner_unit;       // the count inside the unit in progress, singular: "replication"
  int64_t inner_done = 0;
  int64_t inner_total = 0;  // 0: no inner count
  std::string detail;       // what is being done now (shortened to fit the terminal)
};

// The finished fraction of the work in [0, 1]: (done + inner_done / inner_total) / total; 0 while
// the total is unknown.
double progress_fraction(const ProgressState& s);

// "0:07", "12:34", "1:02:03", "3d 04:00:00"; "--:--" for a negative or non-finite duration.
std::string format_duration(double seconds);

// The progress line for `s` after `elapsed_s` seconds, at most `width` characters (at least 20).
std::string format_progress(const ProgressState& s, double elapsed_s, int width);

// Whether a command shows progress: not quiet, the process that prints (MPI rank 0), and stderr
// is a terminal.
bool progress_wanted(bool quiet, bool printing_process);

class ProgressDisplay {
 public:
  using Clock = std::function<double()>;  // seconds, monotonic
  struct Options {
    bool enabled = true;        // false: draws nothing (print_line still prints)
    FILE* out = stderr;         // not owned
    Clock clock;                // default: std::chrono::steady_clock
    double min_redraw_s = 0.1;  // updates closer than this to the last drawing redraw nothing
    // Seconds between redraws while nothing changes (elapsed and ETA keep moving); 0: none (no
    // thread is started).
    double refresh_s = 1.0;
    int width = 0;  // characters per line; 0: the terminal's width (80 when unknown)
  };

  ProgressDisplay(std::string label, std::string unit, Options options);
  ProgressDisplay(std::string label, std::string unit, bool enabled);
  ~ProgressDisplay();
  ProgressDisplay(const ProgressDisplay&) = delete;
  ProgressDisplay& operator=(const ProgressDisplay&) = delete;

  bool enabled() const { return opts_.enabled; }
  void set_total(int64_t total, bool is_bound = false);
  // Units finished (not lowered: a late report of a smaller count is ignored).
  void set_done(int64_t done);
  // set_done and set_total at once, redrawn at most every min_redraw_s (for worker threads).
  void update(int64_t done, int64_t total);
  // Of the finished units, how many were taken from a progress file (not lowered).
  void set_skipped(int64_t skipped);
  // One more unit finished, run now (`skipped` false) or taken from a progress file (true).
  void advance(bool skipped = false);
  // The inner count of the unit in progress (`done` is not lowered until reset_inner).
  void set_inner(int64_t done, int64_t total);
  void reset_inner(std::string inner_unit);
  void set_detail(std::string detail);
  // Prints `line` and a newline on its own line, the progress line (if any) redrawn below it.
  void print_line(const std::string& line);
  // Erases the line and stops redrawing; later calls draw nothing. Idempotent.
  void finish();

  ProgressState state() const;

 private:
  void draw_locked(bool force);
  void erase_locked();
  int width_locked() const;

  Options opts_;
  mutable std::mutex mu_;
  std::condition_variable wake_;
  ProgressState state_;
  double start_s_ = 0;
  double last_draw_s_ = -1;
  bool drawn_ = false;
  bool finished_ = false;
  std::thread ticker_;
};

// "ntpsim: wrote PATH" on stderr for each non-empty path, in order, unless `quiet`: where a
// command put its files (stderr, like every other message; stdout carries only tables and data).
void print_written(const std::vector<std::string>& paths, bool quiet);

}  // namespace ntpsim::cli
