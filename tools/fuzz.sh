#!/usr/bin/env bash
# Builds the libFuzzer targets (CMake preset `asan-ubsan`: clang, ASan + UBSan, build/asan-ubsan,
# the same build as the sanitizer test suite) and runs each for a bounded time on a copy of its
# seed corpus (tests/fuzz/corpus/<target>/).
#
#   tools/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]   default 60 s, all targets
#   targets: units trace_csv trace_infinitehbd hardware workload scenario raw_csv nccl_tests plan
#            uncertain interruption_table
#
# Each target is one libFuzzer process on one core, with -timeout=10 s per input and
# -rss_limit_mb=2048; NTPSIM_FUZZ_JOBS targets (default: the number of cores) run at a time, so
# every target still gets its full SECONDS_PER_TARGET. Any crash, sanitizer report, leak, timeout or
# out-of-memory fails the script (exit 1) after the remaining targets have run; the reproducer's
# path is printed (replay it with the printed command). On success the scratch folder is removed.
# Environment: NTPSIM_FUZZ_BUILD_JOBS (default 2) for the build; TMPDIR for the scratch folder.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

seconds=${1:-60}
if ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
  echo "fuzz.sh: SECONDS_PER_TARGET must be a positive whole number, got '$seconds'" >&2
  exit 2
fi
shift $(( $# > 0 ? 1 : 0 ))
all=(units trace_csv trace_infinitehbd hardware workload scenario raw_csv nccl_tests plan
     uncertain interruption_table)
if [ $# -eq 0 ]; then targets=("${all[@]}"); else targets=("$@"); fi
for t in "${targets[@]}"; do
  if [ ! -d "tests/fuzz/corpus/$t" ]; then
    echo "fuzz.sh: unknown target '$t' (known: ${all[*]})" >&2
    exit 2
  fi
done

# libFuzzer ships with clang's runtime libraries (Debian: clang and libclang-rt-14-dev).
if ! command -v clang++ >/dev/null ||
   ! echo 'extern "C" int LLVMFuzzerTestOneInput(const char*, unsigned long) { return 0; }' |
     clang++ -x c++ -fsanitize=fuzzer,address,undefined - -o /dev/null 2>/dev/null; then
  echo "fuzz.sh: clang++ with libFuzzer not found (Debian: apt-get install clang libclang-rt-14-dev)" >&2
  exit 1
fi
cmake --preset asan-ubsan >/dev/null
cmake --build build/asan-ubsan -j "${NTPSIM_FUZZ_BUILD_JOBS:-2}" --target ntpsim_fuzzers

work=$(mktemp -d "${TMPDIR:-/tmp}/ntpsim-fuzz.XXXXXX")
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:allocator_may_return_null=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
# One target: runs in $work/<target>; leaves `status` (0 = clean) and `summary` there.
fuzz_one() {
  local t=$1
  local bin="$root/build/asan-ubsan/tests/fuzz/fuzz_$t"
  local dir="$work/$t"
  mkdir -p "$dir/corpus" "$dir/artifacts"
  cp "tests/fuzz/corpus/$t"/* "$dir/corpus/"
  local start rc=0
  start=$(date +%s)
  # TMPDIR: the targets' scratch files (fuzz_util.h) go inside $work and leave with it.
  (cd "$dir" && TMPDIR="$dir" "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -artifact_prefix="$dir/artifacts/" -print_final_stats=1 corpus >log 2>&1) || rc=$?
  local runs cov
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log")
  cov=$(grep -o 'cov: [0-9]*' "$dir/log" | tail -1 || true)
  echo "${runs:-?} inputs in $(( $(date +%s) - start )) s, $cov" >"$dir/summary"
  echo "$rc" >"$dir/status"
}

jobs=${NTPSIM_FUZZ_JOBS:-$(nproc)}
running=0
for t in "${targets[@]}"; do
  if (( running >= jobs )); then
    wait -n || true
    running=$(( running - 1 ))
  fi
  fuzz_one "$t" &
  running=$(( running + 1 ))
done
wait || true

failed=()
for t in "${targets[@]}"; do
  if [ "$(cat "$work/$t/status" 2>/dev/null || echo missing)" = 0 ]; then
    echo "fuzz.sh: $t: clean, $(cat "$work/$t/summary")"
  else
    failed+=("$t")
    echo "fuzz.sh: $t: FAILED; last lines of $work/$t/log:" >&2
    tail -n 40 "$work/$t/log" >&2 || true
    for a in "$work/$t/artifacts"/*; do
      [ -e "$a" ] || continue
      echo "fuzz.sh: $t: reproducer: $a" >&2
      echo "fuzz.sh: $t: replay with: $root/build/asan-ubsan/tests/fuzz/fuzz_$t $a" >&2
    done
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz.sh: findings in: ${failed[*]} (scratch kept in $work)" >&2
  exit 1
fi
rm -rf "$work"
echo "fuzz.sh: all ${#targets[@]} targets clean, ${seconds} s each"
