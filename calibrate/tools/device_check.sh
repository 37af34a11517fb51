#!/usr/bin/env bash
# A short, prepared calibration run for one GPU (about 5 minutes on an H200): builds ntpcal
# standalone (CUDA toolkit, CMake and Ninja only), then records `info`, Llama-3-70B layer GEMMs at
# TP 8/7/6, a square-GEMM ladder, and power/clock observation (no --set-power-limits: it changes
# nothing on the GPU). Files go to $OUT (default calibrate/measured/<gpu>-<date>/).
#
#   bash calibrate/tools/device_check.sh            # from the repository root, on the GPU machine
set -euo pipefail
cd "$(dirname "$0")/../.."
ARCH=${CUDA_ARCH:-90}
BUILD=${BUILD:-build-ntpcal}
cmake -S calibrate/ntpcal -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CUDA_ARCHITECTURES="$ARCH" -DNTPCAL_WITH_MPI=OFF > "$BUILD.configure.log"
cmake --build "$BUILD" -j"$(nproc)" > "$BUILD.build.log"
NTPCAL="$BUILD/ntpcal"
GPU=$("$NTPCAL" info | sed -n 's/^gpu: //p' | tr ' ' '-' | tr -cd 'A-Za-z0-9._-')
DEST=${OUT:-calibrate/measured/${GPU:-gpu}-$(date -u +%Y%m%d)}
mkdir -p "$DEST"
"$NTPCAL" info > "$DEST/info.txt"
"$NTPCAL" gemm --workload models/workloads/llama3-70b.yaml --tp 8,7,6 --dtype bf16,fp8 \
    --reps 20 --out "$DEST/gemm-llama3-70b.csv"
"$NTPCAL" gemm --square 256,512,1024,2048,4096,8192,16384 --dtype bf16,fp8 --reps 20 \
    --out "$DEST/gemm-square.csv"
"$NTPCAL" power --square 256,1024,4096,8192,16384 --min-seconds 2 --out "$DEST/power.csv"
echo "wrote $DEST"
