#!/usr/bin/env bash
# Everything from a fresh Debian 12 machine to a passing test suite (host backends):
# packages, the project-built Kokkos 3.4.01 (cached in ~/.cache/gigaseg), configure, build, ctest.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/install-deps.sh
scripts/build-kokkos.sh host
cmake --preset openmp
cmake --build --preset openmp
ctest --preset openmp
