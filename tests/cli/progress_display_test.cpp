// The progress line of run, sweep and plan (tools/ntpsim/progress_display.h): its text as a pure
// function of the counts and an elapsed time given by the test, and the display's drawing with an
// injected clock (no timings, no terminal: the display writes to a temporary file).
#include "tools/ntpsim/progress_display.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace ntpsim::cli {
namespace {

ProgressState run_state(int64_t done, int64_t total) {
  ProgressState s;
  s.label = "run";
  s.unit = "replications";
  s.done = done;
  s.total = total;
  return s;
}

TEST(ProgressDisplayFormat, Durations) {
  EXPECT_EQ(format_duration(0), "0:00");
  EXPECT_EQ(format_duration(7.4), "0:07");
  EXPECT_EQ(format_duration(754), "12:34");
  EXPECT_EQ(format_duration(3723), "1:02:03");
  EXPECT_EQ(format_duration(3 * 86400 + 4 * 3600), "3d 04:00:00");
  EXPECT_EQ(format_duration(-1), "--:--");
  EXPECT_EQ(format_duration(1.0 / 0.0), "--:--");
}

TEST(ProgressDisplayFormat, CountRateElapsedAndEta) {
  // 12 of 20 in 4 s: 3/s, 8 left -> 2.67 s -> "0:03".
  EXPECT_EQ(format_progress(run_state(12, 20), 4.0, 200),
            "run: 12/20 replications [############        ] 3/s  elapsed 0:04  ETA 0:03");
}

TEST(ProgressDisplayFormat, SlowRateReadsAsSecondsEach) {
  // 1 of 4 points in 21 s: one per 21 s, 3 left -> 63 s.
  ProgressState s = run_state(1, 4);
  s.label = "sweep";
  s.unit = "points";
  EXPECT_EQ(format_progress(s, 21.0, 200),
            "sweep: 1/4 points [#####               ] 1 per 21 s  elapsed 0:21  ETA 1:03");
}

TEST(ProgressDisplayFormat, InnerCountAdvancesTheFractionAndTheEta) {
  // 1 point done and half of the second: 1.5 of 4 in 30 s -> 20 s each, 2.5 left -> 50 s.
  ProgressState s = run_state(1, 4);
  s.label = "sweep";
  s.unit = "points";
  s.inner_unit = "replication";
  s.inner_done = 10;
  s.inner_total = 20;
  EXPECT_DOUBLE_EQ(progress_fraction(s), 1.5 / 4);
  EXPECT_EQ(format_progress(s, 30.0, 200),
            "sweep: 1/4 points, replication 10/20 [#######             ] 1 per 20 s  elapsed "
            "0:30  ETA 0:50");
}

TEST(ProgressDisplayFormat, NoRateOrEtaBeforeAnyWorkOrTooEarly) {
  EXPECT_EQ(format_progress(run_state(0, 20), 10.0, 200),
            "run: 0/20 replications [                    ]  elapsed 0:10  ETA --:--");
  // Work done, but under half a second: the first replications say little about the rest.
  EXPECT_EQ(format_progress(run_state(2, 20), 0.2, 200),
            "run: 2/20 replications [##                  ]  elapsed 0:00  ETA --:--");
}

TEST(ProgressDisplayFormat, SkippedUnitsDoNotSpeedUpTheRate) {
  // 3 of 4 points, 2 of them from the progress file: 1 run in 40 s -> 1 left takes 40 s.
  ProgressState s = run_state(3, 4);
  s.unit = "points";
  s.skipped = 2;
  EXPECT_EQ(format_progress(s, 40.0, 200),
            "run: 3/4 points [###############     ] 1 per 40 s  elapsed 0:40  ETA 0:40");
  // Only skipped units so far: no rate yet.
  s.done = 2;
  EXPECT_EQ(format_progress(s, 40.0, 200),
            "run: 2/4 points [##########          ]  elapsed 0:40  ETA --:--");
}

TEST(ProgressDisplayFormat, BoundTotalFinishedAndUnknownTotal) {
  ProgressState s = run_state(3, 12);
  s.label = "plan";
  s.unit = "finalists";
  s.total_is_bound = true;
  EXPECT_EQ(format_progress(s, 30.0, 200),
            "plan: 3 of at most 12 finalists [#####               ] 1 per 10 s  elapsed 0:30  "
            "ETA 1:30");
  EXPECT_EQ(format_progress(run_state(20, 20), 8.0, 200),
            "run: 20/20 replications [####################] 2.5/s  elapsed 0:08  ETA 0:00");
  EXPECT_EQ(format_progress(run_state(5, 0), 8.0, 200), "run: 5 replications  elapsed 0:08");
}

TEST(ProgressDisplayFormat, DetailIsShortenedToTheWidth) {
  ProgressState s = run_state(1, 2);
  s.detail = "ntp gb200-nvl72 448+2 domains TP64 PP16 DP28";
  const std::string line = format_progress(s, 1.0, 60);
  EXPECT_EQ(line.size(), 60u);
  EXPECT_EQ(line, "run: 1/2 replications [##########          ] 1/s  elapsed...");
  EXPECT_EQ(format_progress(s, 1.0, 200),
            "run: 1/2 replications [##########          ] 1/s  elapsed 0:01  ETA 0:01  ntp "
            "gb200-nvl72 448+2 domains TP64 PP16 DP28");
}

// The display writes to a temporary file with a clock the test sets.
class ProgressDisplayDrawing : public ::testing::Test {
 protected:
  void SetUp() override {
    file_ = std::tmpfile();
    ASSERT_NE(file_, nullptr);
  }
  void TearDown() override { std::fclose(file_); }

  ProgressDisplay::Options options(bool enabled) {
    ProgressDisplay::Options o;
    o.enabled = enabled;
    o.out = file_;
    o.clock = [this] { return now_; };
    o.refresh_s = 0;  // no redraw thread: every drawing comes from a call below
    o.width = 200;
    return o;
  }

  std::string written() {
    std::fflush(file_);
    std::rewind(file_);
    std::string text;
    char buf[512];
    size_t n = 0;
    while ((n = std::fread(buf, 1, sizeof buf, file_)) > 0) text.append(buf, n);
    return text;
  }

  FILE* file_ = nullptr;
  double now_ = 100.0;
};

TEST_F(ProgressDisplayDrawing, RedrawsInPlaceThrottlesWorkerUpdatesAndErasesAtTheEnd) {
  ProgressDisplay d("run", "replications", options(true));
  d.update(1, 4);  // first drawing
  now_ += 0.05;
  d.update(2, 4);  // within min_redraw_s of the last drawing: counted, not drawn
  now_ += 1.0;
  d.update(3, 4);
  d.finish();
  d.update(4, 4);  // after finish: nothing
  EXPECT_EQ(written(),
            "\rrun: 1/4 replications [#####               ]  elapsed 0:00  ETA --:--\x1b[K"
            "\rrun: 3/4 replications [###############     ] 2.86/s  elapsed 0:01  ETA 0:00\x1b[K"
            "\r\x1b[K");
  EXPECT_EQ(d.state().done, 4);
}

TEST_F(ProgressDisplayDrawing, MessagesPrintAboveTheLine) {
  ProgressDisplay d("plan", "finalists", options(true));
  d.set_total(2, /*is_bound=*/true);
  d.print_line("ntpsim plan: note: something");
  d.finish();
  const std::string line =
      "\rplan: 0 of at most 2 finalists [                    ]  elapsed 0:00  ETA --:--\x1b[K";
  EXPECT_EQ(written(), line + "\r\x1b[K" + "ntpsim plan: note: something\n" + line + "\r\x1b[K");
}

TEST_F(ProgressDisplayDrawing, DisabledDrawsNothingButPrintsMessages) {
  ProgressDisplay d("sweep", "points", options(false));
  d.set_total(4);
  d.reset_inner("replication");
  d.set_inner(3, 10);
  d.advance(/*skipped=*/true);
  d.print_line("ntpsim: note: kept");
  d.finish();
  EXPECT_EQ(written(), "ntpsim: note: kept\n");
  const ProgressState s = d.state();
  EXPECT_EQ(s.done, 1);
  EXPECT_EQ(s.skipped, 1);
  EXPECT_EQ(s.inner_done, 3);
}

TEST_F(ProgressDisplayDrawing, InnerCountIsNotLoweredByALateWorkerReport) {
  ProgressDisplay d("sweep", "points", options(false));
  d.reset_inner("replication");
  d.set_inner(5, 10);
  d.set_inner(4, 10);  // a worker that finished earlier reports after a later one
  EXPECT_EQ(d.state().inner_done, 5);
  d.reset_inner("replication");
  EXPECT_EQ(d.state().inner_done, 0);
}

}  // namespace
}  // namespace ntpsim::cli
