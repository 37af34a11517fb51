#!/usr/bin/env bash
# Quick start, step 2: build everything of the release preset (every library, the tests, the
# benchmarks; what tools/quickstart.sh built is reused) and run the whole test suite.
# Parallelism: CMake's CMAKE_BUILD_PARALLEL_LEVEL (e.g. 2), else the generator's default.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset release >/dev/null
cmake --build --preset release
ctest --preset release -j "$(nproc)"
