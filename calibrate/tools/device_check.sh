#!/usr/bin/env bash
# A short, prepared calibration run for a GPU machine with little time on it: the whole on-ramp
# (calibrate/tools/calibrate_node.sh: standalone ntpcal build for Hopper and Blackwell, `info`,
# layer and square GEMMs, collectives and the reshard when there are 2+ GPUs, power observation,
# then fit/step/run where an ntpsim binary exists) under a budget of $BUDGET minutes (default 8).
# Every log — configure, build (compiler errors included), each step — goes to $OUT next to the
# raw files, and a failing step does not stop the ones after it (steps.tsv lists each outcome).
#
#   OUT=/path/to/out bash calibrate/tools/device_check.sh    # from anywhere in the checkout
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
ARGS=(--budget "${BUDGET:-8}" --tp "${TP:-8,7,6}")
[[ -n "${OUT:-}" ]] && ARGS+=(--out "$OUT")
[[ -n "${CUDA_ARCH:-}" ]] && ARGS+=(--arch "$CUDA_ARCH")
exec bash calibrate/tools/calibrate_node.sh "${ARGS[@]}"
