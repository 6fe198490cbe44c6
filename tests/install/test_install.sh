#!/usr/bin/env bash
# Installs the build tree into a scratch prefix, then configures, builds and runs a consumer
# project that only knows find_package(gigaseg) and #include <gigaseg/...>: it labels an image and
# reads the region statistics (host backends here; the CUDA variant builds the same source).
set -euo pipefail
build=$1 consumer=$2 cxx=$3 prefix_path=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$consumer" -B "$work/build" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_PREFIX_PATH="$work/prefix;$prefix_path" >/dev/null
cmake --build "$work/build" >/dev/null
OMP_NUM_THREADS=1 "$work/build/consumer" "$work/labels.tif"
test -s "$work/labels.tif"
echo "install test passed"
