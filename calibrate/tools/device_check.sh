#!/usr/bin/env bash
# A short, prepared calibration run for a GPU machine with little time on it: the whole on-ramp
# (calibrate/tools/calibrate_node.sh: standalone ntpcal build for Hopper and Blackwell, `info`,
# layer and square GEMMs, collectives and the reshard when there are 2+ GPUs, power observation,
# then fit/step/run where an ntpsim binary exists) under a budget of $BUDGET minutes (default 8).
# Every log — configure, build (compiler errors included), each step — goes to $OUT next to the
# raw files, and a failing step does not stop the ones after it (steps.tsv lists each outcome).
# The build tree goes to $BUILD_DIR (default build-ntpcal in the checkout, ignored by git), not
# to $OUT: $OUT holds only what is worth bringing back, and a second run on the same machine
# reuses the build. An ntpsim binary at build/release/tools/ntpsim (or $NTPSIM) adds the fit,
# `ntpsim step` and the small run.
#
#   OUT=/path/to/out bash calibrate/tools/device_check.sh    # from anywhere in the checkout
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
ARGS=(--budget "${BUDGET:-8}" --tp "${TP:-8,7,6}" --build "${BUILD_DIR:-build-ntpcal}")
[[ -n "${OUT:-}" ]] && ARGS+=(--out "$OUT")
[[ -n "${CUDA_ARCH:-}" ]] && ARGS+=(--arch "$CUDA_ARCH")
exec bash calibrate/tools/calibrate_node.sh "${ARGS[@]}"
