#!/bin/sh
# `ntpsim report` end to end: every format and the timeline from the fixture, exit code 2 with a
# file:line:col message for a broken results file, 2 for a missing one, nothing left behind.
# usage: cli_test.sh NTPSIM FIXTURE.json WORK_DIR
set -u
ntpsim=$1 fixture=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }

"$ntpsim" report "$fixture" -o "$work/r.html" --timeline "$work/t.json" || fail "html + timeline"
"$ntpsim" report "$fixture" -o "$work/r.md" || fail "markdown"
"$ntpsim" report "$fixture" -o "$work/r.csv" || fail "csv"
"$ntpsim" report "$fixture" -o "$work/forced.txt" --format md || fail "--format md"
for f in r.html t.json r.md r-goodput.svg r-timeline.svg r.csv forced.txt forced-goodput.svg; do
  [ -s "$work/$f" ] || fail "missing $f"
done
head -c 15 "$work/r.html" | grep -q "<!DOCTYPE html>" || fail "r.html is not HTML"
grep -q "^# Goodput report" "$work/forced.txt" || fail "--format md did not write Markdown"
grep -q '"traceEvents"' "$work/t.json" || fail "t.json is not a trace"

printf '{\n  "schema": "ntpsim-results/1",\n  "kind": oops\n}\n' >"$work/broken.json"
"$ntpsim" report "$work/broken.json" -o "$work/b.html" 2>"$work/err.txt"
rc=$?
[ "$rc" = 2 ] || fail "broken JSON: exit $rc, expected 2"
grep -q "broken.json:3:11: not valid JSON" "$work/err.txt" || fail "message: $(cat "$work/err.txt")"
[ ! -e "$work/b.html" ] || fail "wrote a report from a broken file"

"$ntpsim" report "$work/none.json" -o "$work/n.html" 2>/dev/null
rc=$?
[ "$rc" = 2 ] || fail "missing file: exit $rc, expected 2"
"$ntpsim" report "$fixture" 2>/dev/null
rc=$?
[ "$rc" = 2 ] || fail "no output asked: exit $rc, expected 2"
ls -A "$work" | grep -q "\.ntpsim-.*\.\(tmp\|old\)$" && fail "temporary files left: $(ls -A "$work")"
echo "ok"
