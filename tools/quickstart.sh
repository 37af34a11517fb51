#!/usr/bin/env bash
# Quick start, step 1: install what is missing (Debian packages), build the release preset, and run
# the main job: the default scenario (scenarios/quickstart.yaml), printing the per-strategy results
# and writing results JSON/CSV and the HTML report under out/.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" -eq 0 ]; then
  bash tools/install-deps.sh
else
  echo "quickstart: not root; checking dependencies without installing (run as root to install)" >&2
  bash tools/install-deps.sh --check
fi

cmake --preset release >/dev/null
cmake --build --preset release
mkdir -p out
./build/release/tools/ntpsim run scenarios/quickstart.yaml \
  --out out/quickstart-results.json --csv out/quickstart-results.csv \
  --report out/quickstart-report.html \
  ${NTPSIM_QUICKSTART_EXTRA:-}
