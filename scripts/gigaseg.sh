#!/usr/bin/env bash
# Builds (once) and runs the gigaseg command line on this machine with the host backends:
#   scripts/gigaseg.sh info
#   scripts/gigaseg.sh --backend openmp info
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
(
  cd "$root"
  scripts/install-deps.sh
  scripts/build-kokkos.sh host
  [ -f build/openmp/build.ninja ] || cmake --preset openmp
  cmake --build build/openmp --target gigaseg_cli
) >&2
exec "$root/build/openmp/apps/gigaseg" "$@"
