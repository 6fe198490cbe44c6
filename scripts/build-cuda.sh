#!/usr/bin/env bash
# The CUDA variant: Kokkos 3.4.01 for sm_90 (H100/H200) and gigaseg with the `cuda` preset.
#   scripts/build-cuda.sh            library, CLI, tests
#   scripts/build-cuda.sh --lib-only library only (the compile-only check CI runs: no GPU here)
#   scripts/build-cuda.sh --bench    also the perf/ programs (preset cuda-bench)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/install-deps.sh
scripts/build-kokkos.sh cuda
case ${1:-} in
  --lib-only)
    cmake --preset cuda -B build/cuda-lib -DGIGASEG_ENABLE_TESTS=OFF -DGIGASEG_ENABLE_APPS=OFF
    cmake --build build/cuda-lib --target gigaseg ;;
  --bench)
    cmake --preset cuda-bench
    cmake --build --preset cuda-bench ;;
  *)
    cmake --preset cuda
    cmake --build --preset cuda ;;
esac
