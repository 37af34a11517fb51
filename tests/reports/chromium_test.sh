#!/bin/sh
# Renders the fixture report in headless Chromium, then checks that the page logged no console
# errors, that every chart is an <svg> in the rendered DOM, and that the screenshot has ink in
# each chart's box (check_screenshot.py). Exits 77 (ctest SKIP_RETURN_CODE) without chromium.
# The charts that must be in the DOM are EXPECT_CHARTS (space-separated ids; default: the five of
# a run report); EXPECT_BOXES names further elements (e.g. "verdict") that must be rendered with
# ink, checked like the charts.
# usage: chromium_test.sh WORK_DIR COMMAND ARGS...
#   COMMAND ARGS... writes the report; an argument @REPORT@ stands for WORK_DIR/report.html, e.g.
#   chromium_test.sh out render_fixture small.json @REPORT@
#   chromium_test.sh out ntpsim run scenarios/quickstart.yaml -q --report @REPORT@
set -eu
work=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
chromium=${CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$chromium" ]; then
  echo "SKIPPED: $chromium not installed (apt-get install chromium)"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work"
export HOME="${HOME:-$work}"  # chromium wants a home even with --user-data-dir
for arg in "$@"; do
  shift
  if [ "$arg" = "@REPORT@" ]; then set -- "$@" "$work/report.html"; else set -- "$@" "$arg"; fi
done
"$@"
[ -s "$work/report.html" ] || { echo "the command wrote no report: $*"; exit 1; }

profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
run_chromium() {
  timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$profile" --hide-scrollbars --force-device-scale-factor=1 \
    --enable-logging=stderr --v=0 "$@"
}

expect_charts=${EXPECT_CHARTS:-goodput badput paired distribution timeline}
expect_boxes=${EXPECT_BOXES:-}
# 1. A probe copy measures each chart's box (the report itself has no scripts).
python3 - "$work/report.html" "$work/probe.html" "$expect_boxes" <<'PY'
import json, sys
html = open(sys.argv[1], encoding="utf-8").read()
extra = json.dumps(sys.argv[3].split())
probe = """<pre id="probe-out"></pre><script>
const boxes = [...document.querySelectorAll('svg.chart')].concat(
  EXTRA.map(id => document.getElementById(id)).filter(e => e));
const r = boxes.map(s => {
  const b = s.getBoundingClientRect();
  return {id: s.id, x: b.left + scrollX, y: b.top + scrollY, w: b.width, h: b.height};
});""".replace("EXTRA", extra) + """
const m = document.querySelector('main').getBoundingClientRect();
document.getElementById('probe-out').textContent = JSON.stringify({charts: r,
  blank: {id: 'margin', x: m.right + 8, y: 0, w: Math.max(0, innerWidth - m.right - 16),
          h: Math.min(document.body.scrollHeight, 2000)},
  height: document.documentElement.scrollHeight});
</script>"""
open(sys.argv[2], "w", encoding="utf-8").write(html.replace("</body>", probe + "</body>"))
PY
run_chromium --window-size=1280,2400 --dump-dom "file://$work/probe.html" \
  >"$work/probe-dom.html" 2>"$work/probe.log"
python3 - "$work/probe-dom.html" "$work/boxes.json" "$expect_charts $expect_boxes" <<'PY'
import html, json, re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r'<pre id="probe-out">(.*?)</pre>', dom, re.S)
if not m or not m.group(1).strip():
    sys.exit("probe produced no boxes (did the page render?)")
boxes = json.loads(html.unescape(m.group(1)))
ids = [c["id"] for c in boxes["charts"]]
for want in sys.argv[3].split():
    if want not in ids:
        sys.exit(f"{want} missing from the rendered DOM (found {ids})")
json.dump(boxes, open(sys.argv[2], "w"))
print("charts in DOM:", ", ".join(ids), "; page height", boxes["height"])
PY
height=$(python3 -c "import json,sys; print(min(8000, int(json.load(open(sys.argv[1]))['height']) + 20))" "$work/boxes.json")

# 2. The screenshot of the report itself, tall enough for every chart.
run_chromium --window-size=1280,"$height" --screenshot="$work/report.png" \
  "file://$work/report.html" 2>"$work/chromium.log" >/dev/null
[ -s "$work/report.png" ] || { echo "no screenshot written"; cat "$work/chromium.log"; exit 1; }
if grep -E "CONSOLE|Uncaught|Refused to|net::ERR_|Failed to load resource" "$work/chromium.log"; then
  echo "the report logged console errors or tried to load something (above)"
  exit 1
fi
python3 "$here/check_screenshot.py" "$work/report.png" "$work/boxes.json"
