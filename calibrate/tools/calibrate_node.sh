#!/usr/bin/env bash
# One node with N GPUs, from nothing to a fitted profile, under a time budget:
#   1. builds ntpcal standalone (CUDA toolkit, CMake, a C++ compiler; Ninja when present);
#   2. records `ntpcal info`, then layer GEMMs of a workload at several TP degrees and a square
#      ladder (bf16, fp8), collectives over every group size 2..N, the NTP reshard over the N GPUs,
#      and power/clock observation (observe only: no power limit is changed);
#   3. fits a profile with `ntpsim fit` (onto a spec profile, --base) and runs `ntpsim step` and
#      a small `ntpsim run` with it.
# Every step runs under `timeout` with what is left of the budget; a failing step is logged and
# the next runs. Raw files carry their full context (GPU, UUID, driver, CUDA, NCCL, clocks, power
# limits, hosts, git SHA, command line); the build and step logs land next to them in --out.
#
#   bash calibrate/tools/calibrate_node.sh [--out DIR] [--budget MINUTES] [--gpus N]
#        [--workload NAME] [--tp LIST] [--base PROFILE] [--ntpsim PATH] [--arch LIST]
#        [--build DIR] [--ntpcal PATH]
#
# --build puts the ntpcal build tree elsewhere than DIR/build-ntpcal (its logs stay in --out);
# --ntpcal uses an ntpcal binary already built and skips the build. Without an `ntpsim` binary
# (--ntpsim, $NTPSIM, or build/release/tools/ntpsim) the fit and simulation steps are skipped
# with the command to run elsewhere; with one, the measurements leave the last 90 s of the
# budget to the fit, `ntpsim step` and the small run. Exit code: 0 when every step ran, 1 when
# some failed (see steps.tsv), 2 for bad options.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
REPO=$PWD

OUT="" BUDGET_MIN=30 GPUS="" WORKLOAD=llama3-70b TP=8,7,6,4 BASE="" NTPSIM_BIN=${NTPSIM:-} ARCH=""
BUILD="" NTPCAL=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --out) OUT=$2; shift 2 ;;
    --budget) BUDGET_MIN=$2; shift 2 ;;
    --gpus) GPUS=$2; shift 2 ;;
    --workload) WORKLOAD=$2; shift 2 ;;
    --tp) TP=$2; shift 2 ;;
    --base) BASE=$2; shift 2 ;;
    --ntpsim) NTPSIM_BIN=$2; shift 2 ;;
    --arch) ARCH=$2; shift 2 ;;
    --build) BUILD=$2; shift 2 ;;
    --ntpcal) NTPCAL=$2; shift 2 ;;
    -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
    *) echo "calibrate_node.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ "$BUDGET_MIN" =~ ^[0-9]+$ && "$BUDGET_MIN" -ge 5 ]] || { echo "calibrate_node.sh: --budget must be >= 5 minutes" >&2; exit 2; }
[[ -f "models/workloads/$WORKLOAD.yaml" ]] || { echo "calibrate_node.sh: no models/workloads/$WORKLOAD.yaml" >&2; exit 2; }
[[ -z "$NTPCAL" || ( -f "$NTPCAL" && -x "$NTPCAL" ) ]] || { echo "calibrate_node.sh: --ntpcal $NTPCAL is not an executable" >&2; exit 2; }
[[ -z "$NTPSIM_BIN" || ( -f "$NTPSIM_BIN" && -x "$NTPSIM_BIN" ) ]] || { echo "calibrate_node.sh: --ntpsim $NTPSIM_BIN is not an executable" >&2; exit 2; }
# The in-tree release build puts ntpsim at build/release/tools/ntpsim.
if [[ -z "$NTPSIM_BIN" && -f build/release/tools/ntpsim && -x build/release/tools/ntpsim ]]; then
  NTPSIM_BIN=build/release/tools/ntpsim
fi
# Seconds the measurements leave for the fit, `ntpsim step` and the small run.
RESERVE=0
[[ -n "$NTPSIM_BIN" ]] && RESERVE=90

START=$SECONDS
DEADLINE=$((START + BUDGET_MIN * 60))
OUT=${OUT:-calibrate/measured/node-$(hostname -s)-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$OUT" || exit 2
STEPS="$OUT/steps.tsv"
printf 'step\tstatus\tseconds\n' > "$STEPS"
FAILED=0
# The device copy of a checkout may have no .git: pass the SHA on so raw files record it.
if [[ -z "${NTPSIM_GIT_SHA:-}" ]] && git -C "$REPO" rev-parse --short=12 HEAD > /dev/null 2>&1; then
  NTPSIM_GIT_SHA=$(git -C "$REPO" rev-parse --short=12 HEAD)
fi
export NTPSIM_GIT_SHA=${NTPSIM_GIT_SHA:-unknown}

say() { echo "[calibrate $(date -u +%H:%M:%S)] $*" | tee -a "$OUT/calibrate.log"; }

# step NAME MIN_SECONDS CMD...: runs CMD with stdout+stderr in $OUT/NAME.log under what is left of
# the budget (skipped when less than MIN_SECONDS is left). measure NAME MIN_SECONDS CMD... is the
# same for a measurement: it leaves RESERVE seconds of the budget to the fit and simulation.
KEEP=0
measure() {
  KEEP=$RESERVE
  step "$@"
  local rc=$?
  KEEP=0
  return $rc
}
step() {
  local name=$1 need=$2
  shift 2
  local left=$((DEADLINE - SECONDS - KEEP))
  if (( left < need )); then
    say "$name: skipped ($left s left of the budget, needs about $need s)"
    printf '%s\tskipped\t0\n' "$name" >> "$STEPS"
    return 1
  fi
  say "$name: $* (at most $left s)"
  local t0=$SECONDS rc=0
  timeout --signal=TERM --kill-after=30 "$left" "$@" > "$OUT/$name.log" 2>&1 || rc=$?
  local status=ok
  (( rc == 124 )) && status=timeout
  (( rc != 0 && rc != 124 )) && status="failed($rc)"
  printf '%s\t%s\t%d\n' "$name" "$status" $((SECONDS - t0)) >> "$STEPS"
  if [[ $status != ok ]]; then
    FAILED=1
    say "$name: $status; last lines of $OUT/$name.log:"
    tail -n 15 "$OUT/$name.log" | tee -a "$OUT/calibrate.log"
    return 1
  fi
  return 0
}

# 1. Build ntpcal standalone (unless --ntpcal names one).
if [[ -z "$NTPCAL" ]]; then
  BUILD=${BUILD:-$OUT/build-ntpcal}
  GEN=()
  command -v ninja > /dev/null && GEN=(-G Ninja)
  ARCH_FLAG=()
  [[ -n "$ARCH" ]] && ARCH_FLAG=(-DCMAKE_CUDA_ARCHITECTURES="$ARCH")
  step configure 30 cmake -S calibrate/ntpcal -B "$BUILD" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release "${ARCH_FLAG[@]}" \
    -DNTPCAL_WITH_MPI=OFF || { say "cannot configure ntpcal: stop"; exit 1; }
  step build 60 cmake --build "$BUILD" -j"$(nproc)" || { say "cannot build ntpcal: stop"; exit 1; }
  NTPCAL="$BUILD/ntpcal"
fi
say "ntpcal: $NTPCAL; ntpsim: ${NTPSIM_BIN:-none (fit elsewhere)}"

step info 10 "$NTPCAL" info
cp "$OUT/info.log" "$OUT/info.txt" 2> /dev/null
if [[ -z "$GPUS" ]]; then
  GPUS=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU ' || true)
  [[ "$GPUS" =~ ^[0-9]+$ && "$GPUS" -ge 1 ]] || GPUS=1
fi
say "GPUs: $GPUS"
if command -v nvidia-smi > /dev/null; then
  nvidia-smi -q > "$OUT/nvidia-smi-q.txt" 2>&1
  nvidia-smi topo -m > "$OUT/nvidia-smi-topo.txt" 2>&1
fi
env | grep '^NCCL_' > "$OUT/nccl-env.txt" || true

# 2. Measurements, most valuable first (the fit needs GEMMs and collectives).
measure gemm-layers 120 "$NTPCAL" gemm --workload "models/workloads/$WORKLOAD.yaml" --tp "$TP" --dtype bf16,fp8,mxfp8 \
  --out "$OUT/gemm-$WORKLOAD.csv"
if (( GPUS >= 2 )); then
  measure collectives 120 "$NTPCAL" collectives -g "$GPUS" --group-sizes "2-$GPUS" -b 1K -e 1G -f 4 -n 20 -w 5 \
    --out "$OUT/collectives.csv"
  if (( GPUS >= 3 )); then
    measure reshard 60 "$NTPCAL" reshard -g "$GPUS" --tp "$GPUS" --k 1,2 -b 1M -e 1G -f 4 --out "$OUT/reshard.csv"
  fi
else
  say "one GPU: no collectives or reshard"
fi
measure power 60 "$NTPCAL" power --min-seconds 3 --out "$OUT/power.csv"
measure gemm-square 60 "$NTPCAL" gemm --square 256,512,1024,2048,4096,8192,16384 --dtype bf16,fp8,mxfp8 \
  --out "$OUT/gemm-square.csv"

# 3. Fit and simulate.
RAW=()
for f in "$OUT"/gemm-*.csv "$OUT"/collectives.csv "$OUT"/reshard.csv "$OUT"/power.csv; do
  [[ -s "$f" ]] && RAW+=("$f")
done
if [[ -z "$BASE" ]]; then
  case "$(sed -n 's/^gpu: //p' "$OUT/info.txt" 2> /dev/null)" in
    *H200*) BASE=h200-sxm ;;
    *H100*) BASE=h100-sxm ;;
    *GB200*|*B200*) BASE=gb200-nvl72 ;;
    *) BASE=h200-sxm ;;
  esac
fi
if [[ -z "$NTPSIM_BIN" ]]; then
  say "no ntpsim binary: fit elsewhere with: ntpsim fit ${RAW[*]} --base $BASE -o $OUT/profile.yaml"
elif (( ${#RAW[@]} == 0 )); then
  say "no raw file holds rows: nothing to fit"
  FAILED=1
else
  TP0=${TP%%,*}
  if step fit 20 "$NTPSIM_BIN" fit "${RAW[@]}" --base "$BASE" -o "$OUT/profile.yaml" --report "$OUT/fit-errors.csv"; then
    step step-time 20 "$NTPSIM_BIN" step --workload "$WORKLOAD" --profile "$OUT/profile.yaml" --tp "$TP0" --pp 1 \
      --dp 8
    cat > "$OUT/small-run.yaml" << EOF
name: calibrated-small
cluster: {domains: 16, gpus_per_domain: $TP0, spare_domains: 1}
workload: $WORKLOAD
layout: {tp: $TP0, pp: 2, dp: 8}
hardware: $(cd "$OUT" && pwd)/profile.yaml
model: analytic
failures:
  processes:
    - component: gpu
      rate: "2e-5/h"
      kinds:
        - {name: hardware, share: 0.78, repair: {distribution: fixed, mean: "3d"}}
        - {name: software, share: 0.22, repair: {distribution: fixed, mean: "3h"}}
checkpoint: {interval: auto, write: "60s", restore: "5min"}
recovery: {detection: "2min", restart: "10min", reconfigure: "1min", spare_swap: "5min"}
strategies: [checkpoint_restart, dp_drop, ntp, ntp_power_boost]
horizon: "7d"
replications: 4
seed: 1
EOF
    step run 30 "$NTPSIM_BIN" run "$OUT/small-run.yaml" --out "$OUT/small-run-results.json"
  fi
fi

say "done in $((SECONDS - START)) s; steps:"
column -t "$STEPS" 2> /dev/null | tee -a "$OUT/calibrate.log" || cat "$STEPS"
say "files in $OUT"
exit $FAILED
