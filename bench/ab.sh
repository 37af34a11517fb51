#!/usr/bin/env bash
# Old and new binary side by side: runs command A and command B in turn (A B A B ...) after one
# warm-up each, times every run with /usr/bin/time, and prints for each command the median wall
# and CPU (user + sys) seconds and peak RSS, then the B/A CPU and wall ratios taken pair by pair
# (median, min, max). Pairing keeps a comparison valid when the machine's speed drifts; quote
# medians and ratios, not single runs.
#
#   bench/ab.sh [-n PAIRS] 'OLD/ntpsim plan bench/plan-20k.yaml --threads 2' \
#                          'NEW/ntpsim plan bench/plan-20k.yaml --threads 2'
#
# Each command's output is discarded. Needs /usr/bin/time (Debian package `time`).
set -euo pipefail

pairs=5
if [[ "${1:-}" == "-n" ]]; then
  pairs="$2"
  shift 2
fi
if [[ $# -ne 2 ]]; then
  echo "usage: bench/ab.sh [-n PAIRS] 'COMMAND A' 'COMMAND B'" >&2
  exit 2
fi
[[ -x /usr/bin/time ]] || { echo "bench/ab.sh: /usr/bin/time is missing (apt-get install time)" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One timed run of $2 (a command line, split as the shell splits words); appends
# "wall cpu rss_kib" to file $1.
timed() {
  local out="$1"
  shift
  # shellcheck disable=SC2086
  /usr/bin/time -f "%e %U %S %M" -o "$tmp/t" $1 > /dev/null 2>&1 || {
    echo "bench/ab.sh: '$1' failed" >&2
    exit 1
  }
  awk '{ printf "%.3f %.3f %d\n", $1, $2 + $3, $4 }' "$tmp/t" >> "$out"
}

timed "$tmp/warm" "$1"
timed "$tmp/warm" "$2"
for ((i = 0; i < pairs; ++i)); do
  timed "$tmp/a" "$1"
  timed "$tmp/b" "$2"
done

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
range() { sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.3f-%.3f", lo, hi }'; }

for side in a b; do
  label=$([[ $side == a ]] && echo "A" || echo "B")
  cmd=$([[ $side == a ]] && echo "$1" || echo "$2")
  printf '%s: %s\n   median wall %.3f s, CPU %.3f s, peak RSS %.1f MiB (%d runs)\n' "$label" "$cmd" \
    "$(cut -d' ' -f1 "$tmp/$side" | median)" "$(cut -d' ' -f2 "$tmp/$side" | median)" \
    "$(cut -d' ' -f3 "$tmp/$side" | median | awk '{ print $1 / 1024 }')" "$pairs"
done
paste -d' ' "$tmp/a" "$tmp/b" | awk '{ print $5 / $2, $4 / $1 }' > "$tmp/ratios"
printf 'B/A CPU  median %.3f (%s)\n' "$(cut -d' ' -f1 "$tmp/ratios" | median)" \
  "$(cut -d' ' -f1 "$tmp/ratios" | range)"
printf 'B/A wall median %.3f (%s)\n' "$(cut -d' ' -f2 "$tmp/ratios" | median)" \
  "$(cut -d' ' -f2 "$tmp/ratios" | range)"
