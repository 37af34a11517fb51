#!/usr/bin/env bash
# Quick start, step 2: build the release preset with tests and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset release >/dev/null
cmake --build --preset release
ctest --preset release -j "$(nproc)"
