#!/usr/bin/env bash
# Quick start, step 1: install what is missing (Debian packages), build the one program the main job
# needs (the `ntpsim` target of the release preset: no tests, no benchmarks; tools/test.sh builds
# those; the preset's profile-guided build compiles an instrumented copy first, README.md), and
# run the main job: the default scenario (scenarios/quickstart.yaml), printing the
# per-strategy results and writing results JSON/CSV and the HTML report under out/.
# Parallelism: CMake's CMAKE_BUILD_PARALLEL_LEVEL (e.g. 2), else the generator's default.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" -eq 0 ]; then
  bash tools/install-deps.sh
else
  echo "quickstart: not root; checking dependencies without installing (run as root to install)" >&2
  bash tools/install-deps.sh --check
fi

cmake --preset release >/dev/null
cmake --build --preset release --target ntpsim
mkdir -p out
./build/release/tools/ntpsim run scenarios/quickstart.yaml \
  --out out/quickstart-results.json --csv out/quickstart-results.csv \
  --report out/quickstart-report.html \
  ${NTPSIM_QUICKSTART_EXTRA:-}
