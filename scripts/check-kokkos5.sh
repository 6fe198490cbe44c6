#!/usr/bin/env bash
# Compile-only check against Kokkos 5 (Debian sid's libkokkos-dev 5.x headers, OpenMP backend):
# every library, application, test and benchmark source is compiled with -std=c++20 -fsyntax-only.
# Its library needs glibc 2.38 and cannot be linked on Debian 12, so nothing is linked or run.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cache=${GIGASEG_CACHE:-$HOME/.cache/gigaseg}
"$root/scripts/fetch-kokkos5-headers.sh" >/dev/null
include=$(cat "$cache/kokkos5/include-dir")
version=$(sed -n 's/^#define KOKKOS_VERSION \([0-9]*\)$/\1/p' "$include/KokkosCore_config.h")
gen=$(mktemp -d)
trap 'rm -rf "$gen"' EXIT
project_version=$(sed -n 's/^project(gigaseg VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
sed -e "s/@PROJECT_VERSION@/$project_version/" -e "s/@PROJECT_VERSION_MAJOR@/0/" \
    -e "s/@PROJECT_VERSION_MINOR@/0/" -e "s/@PROJECT_VERSION_PATCH@/0/" \
    -e "s/@GIGASEG_HAVE_CUDA_KERNELS_VALUE@/0/" -e "s/@GIGASEG_HAVE_MPI_VALUE@/0/" "$root/cmake/gigaseg_config.hpp.in" >"$gen/gigaseg_config.hpp"
# Headers are included as <gigaseg/...>, as in the library's build tree (core/CMakeLists.txt).
mkdir -p "$gen/include/gigaseg"
mv "$gen/gigaseg_config.hpp" "$gen/include/gigaseg/"
for entry in core algorithms backends engine gigaseg.hpp; do ln -s "$root/$entry" "$gen/include/gigaseg/$entry"; done
cd "$root"
sources=$(ls core/*.cpp core/io/*.cpp algorithms/*.cpp algorithms/detail/*.cpp algorithms/pipelines/*.cpp \
              backends/openmp/*.cpp backends/instantiate/*.cpp engine/*.cpp \
              apps/gigaseg/*.cpp tests/*.cpp perf/*.cpp 2>/dev/null || true)
echo "Kokkos $version headers from $include: compiling $(echo "$sources" | wc -w) sources with -std=c++20"
status=0
for source in $sources; do
  if ! g++ -std=c++20 -fopenmp -fsyntax-only -Wall -Wextra -I"$include" -I"$gen/include" -I"$root" \
       $(pkg-config --cflags hwloc libpng libtiff-4 openslide libxml-2.0 cfitsio) -isystem /usr/include/opencv4 "$source" 2>"$gen/log"; then
    echo "FAILED $source"; cat "$gen/log"; status=1
  elif [ -s "$gen/log" ]; then
    echo "warnings in $source"; cat "$gen/log"
  fi
done
[ $status -eq 0 ] && echo "Kokkos 5 compile check passed"
exit $status
