#!/usr/bin/env bash
# Whole-run benchmarks: runs ntpsim on the bench/*.yaml scenarios and prints wall time,
# CPU time, events/s, replications/s and peak memory (GNU time -v). Not a test.
# Usage: bench/run.sh [NTPSIM_BINARY] [THREADS]   (default: build/bench-rel/tools/ntpsim, all cores)
#   REPS_100K=N overrides the 100K scenario's 1,000 replications (e.g. a short CI run).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bin="${1:-$here/../build/bench-rel/tools/ntpsim}"
threads="${2:-$(nproc)}"
[[ -x "$bin" ]] || { echo "run.sh: no ntpsim binary at $bin (build the Release tree first)" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "run.sh: /usr/bin/time (GNU time) is required" >&2; exit 2; }

# One measured run: name, replications, scenario.
measure() {
  local name="$1" reps="$2" scenario="$3" log
  log="$(mktemp)"
  /usr/bin/time -v "$bin" run "$scenario" --replications "$reps" --threads "$threads" \
    >/dev/null 2>"$log" || { cat "$log" >&2; rm -f "$log"; return 1; }
  awk -v name="$name" -v reps="$reps" -v threads="$threads" '
    /Elapsed \(wall clock\)/ { n = split($NF, p, ":"); wall = (n == 3) ? p[1]*3600 + p[2]*60 + p[3] : p[1]*60 + p[2] }
    /User time/ { user = $NF } /System time/ { sys = $NF }
    /Maximum resident set size/ { rss = $NF }
    /^ntpsim: [0-9]+ events/ { events = $2 }
    END { cpu = user + sys; if (wall <= 0) wall = 1e-9; if (cpu <= 0) cpu = 1e-9
          printf "%-12s reps %5d threads %2d  wall %7.2f s  cpu %7.2f s  %8.1f reps/s  %6.2f M events/s (%5.2f M per CPU-s)  peak RSS %7.1f MB\n",
            name, reps, threads, wall, cpu, reps / wall, events / wall / 1e6, events / cpu / 1e6, rss / 1024 }' "$log"
  rm -f "$log"
}

measure quickstart 20 "$here/../scenarios/quickstart.yaml"
measure 100k-year "${REPS_100K:-1000}" "$here/llama3-100k-year.yaml"
measure 1m-year "${REPS_1M:-10}" "$here/llama3-1m-year.yaml"
