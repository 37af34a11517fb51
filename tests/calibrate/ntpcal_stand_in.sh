#!/usr/bin/env bash
# Test double for ntpcal in the on-ramp script's test (tests/calibrate/cli_test.cpp), on machines
# without a GPU. `info` prints a context as ntpcal does; each measurement subcommand copies to its
# --out the file of the same kind that ntpcal-synth wrote into $NTPCAL_SYNTH_DIR (the synthetic
# backend through ntpcal's own measurement loops, labelled synthetic). Every call is appended to
# $NTPCAL_SYNTH_DIR/calls.txt so the test can check the command lines the script passes.
set -euo pipefail
sub=${1:?subcommand}
shift
echo "$sub $*" >> "$NTPCAL_SYNTH_DIR/calls.txt"
out=""
while [[ $# -gt 0 ]]; do
  if [[ $1 == --out ]]; then
    out=$2
    shift 2
  else
    shift
  fi
done
case $sub in
  info)
    echo "tool: ntpcal info"
    echo "gpu: NVIDIA H200 (test stand-in, no GPU)"
    ;;
  gemm | power | collectives | reshard)
    cp "$NTPCAL_SYNTH_DIR/synthetic-$sub.csv" "${out:?--out}"
    ;;
  *)
    echo "ntpcal: error: unknown subcommand '$sub'" >&2
    exit 2
    ;;
esac
