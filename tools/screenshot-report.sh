#!/bin/sh
# Renders a real report in headless Chromium and writes docs/report-screenshot.png for the README.
#
# usage: tools/screenshot-report.sh [RESULTS.json]
#   With no argument it runs `ntpsim run scenarios/quickstart.yaml` (the quick-start scenario,
#   fixed seed) to get real results; with one it reports on that results file.
#   NTPSIM=path/to/ntpsim selects the binary (default: the first of build/release, build/dev,
#   build/*/tools/ntpsim that exists); CHROMIUM=path selects the browser (default
#   /usr/bin/chromium); OUT=path changes the PNG written (default docs/report-screenshot.png).
# Needs: a built ntpsim, chromium (apt-get install chromium). No network.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
chromium=${CHROMIUM:-/usr/bin/chromium}
out=${OUT:-docs/report-screenshot.png}
case "$out" in /*) ;; *) out="$root/$out" ;; esac
[ -x "$chromium" ] || { echo "screenshot-report: $chromium not found (apt-get install chromium)" >&2; exit 2; }
if [ -z "${NTPSIM:-}" ]; then
  for candidate in build/release/tools/ntpsim build/dev/tools/ntpsim build/*/tools/ntpsim; do
    if [ -x "$candidate" ]; then NTPSIM=$candidate; break; fi
  done
fi
[ -n "${NTPSIM:-}" ] && [ -x "$NTPSIM" ] || { echo "screenshot-report: build ntpsim first (cmake --preset release && cmake --build --preset release)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ $# -ge 1 ]; then
  results=$1
else
  results=$work/results.json
  "$NTPSIM" run scenarios/quickstart.yaml --seed 42 --out "$results" -q
fi
"$NTPSIM" report "$results" -o "$work/report.html"
mkdir -p "$(dirname "$out")"
# 1280 px wide like a laptop; tall enough for the context, the summary charts and the timeline.
timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$work/profile" --hide-scrollbars --force-device-scale-factor=1 \
  --window-size=1280,3400 --screenshot="$out" "file://$work/report.html" >/dev/null 2>&1
[ -s "$out" ] || { echo "screenshot-report: chromium wrote no screenshot" >&2; exit 1; }
echo "wrote $out from $results"
