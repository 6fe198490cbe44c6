#!/usr/bin/env bash
# Builds and installs Kokkos 3.4.01 from Debian 12's trilinos source package, for gigaseg builds on
# machines that have no Kokkos of their own. A Kokkos found by find_package(Kokkos) always wins;
# this script is the fallback (see cmake/GigasegKokkos.cmake and docs/building.md).
#
#   scripts/build-kokkos.sh host   # Serial + OpenMP + hwloc            (~3 min on 2 cores)
#   scripts/build-kokkos.sh cuda   # CUDA (sm_90) + OpenMP + Serial     (~10 min on 2 cores)
#   scripts/build-kokkos.sh fuzz   # Serial only, built with clang, for the libFuzzer targets
#                                  # (tests/fuzz, scripts/fuzz.sh)        (~2 min on 2 cores)
#
# Output: $GIGASEG_CACHE/kokkos-3.4.01-<variant> (default cache ~/.cache/gigaseg). A finished
# install is marked with .complete and reused; an interrupted one is rebuilt.
set -euo pipefail

variant=${1:-host}
here=$(cd "$(dirname "$0")" && pwd)
cache=${GIGASEG_CACHE:-$HOME/.cache/gigaseg}
prefix=$cache/kokkos-3.4.01-$variant
jobs=${GIGASEG_JOBS:-$(nproc)}

case $variant in host | cuda | fuzz) ;; *)
  echo "build-kokkos.sh: unknown variant '$variant' (expected host, cuda or fuzz)" >&2
  exit 2
  ;;
esac

if [ -f "$prefix/.complete" ]; then
  echo "Kokkos ($variant) already installed in $prefix"
  exit 0
fi

"$here/fetch-trilinos.sh"
src_root=$cache/src/kokkos-3.4.01
if [ ! -f "$src_root/.extracted" ]; then
  rm -rf "$src_root" && mkdir -p "$src_root"
  echo "Extracting packages/kokkos from the trilinos tarball"
  tar xzf "$cache"/src/trilinos_13.2.0.orig.tar.gz -C "$src_root" --strip-components=3 \
    --wildcards '*/packages/kokkos/*'
  touch "$src_root/.extracted"
fi

# --- Fixes for CUDA 13 and Hopper -------------------------------------------------------------
# Kokkos 3.4.01 predates CUDA 12 and Hopper. Each edit below is guarded by a marker so the step is
# idempotent, and each leaves the host-only build exactly as upstream wrote it.
apply_fix() { # apply_fix <file> <marker> <python-snippet operating on variable s>
  local file=$src_root/$1 marker=$2 code=$3
  if grep -q "$marker" "$file"; then return; fi
  python3 - "$file" "$marker" <<PY
import sys
path, marker = sys.argv[1], sys.argv[2]
s = open(path).read()
before = s
$code
if s == before:
    sys.exit("build-kokkos.sh: fix '" + marker + "' found nothing to change in " + path)
open(path, "w").write(s)
PY
  echo "applied fix: $marker"
}

# (a) Kokkos's CUDA half_t wraps __half with operators that clash with the ones cuda_fp16.h
#     defines itself since CUDA 12. gigaseg does not use half precision, so for CUDA >= 12 we skip
#     that header's body and let Kokkos_Half.hpp define its generic float-backed half_t.
apply_fix core/src/Cuda/Kokkos_Cuda_Half.hpp "GIGASEG_FIX_HALF" '
old = "#if !(defined(KOKKOS_COMPILER_CLANG) && KOKKOS_COMPILER_CLANG < 900) && \\\n"
new = ("/* GIGASEG_FIX_HALF: CUDA >= 12 cuda_fp16.h conflicts with this wrapper. */\n"
       "#if !(defined(__CUDACC_VER_MAJOR__) && __CUDACC_VER_MAJOR__ >= 12) && \\\n    " + old[4:])
s = s.replace(old, new, 1)
'

# (b) CUDA 13 changed cudaMemPrefetchAsync(ptr, bytes, int device, stream) into
#     (ptr, bytes, cudaMemLocation, unsigned flags, stream).
apply_fix core/src/Cuda/Kokkos_CudaSpace.cpp "GIGASEG_FIX_PREFETCH" '
old = """    CUDA_SAFE_CALL(cudaMemPrefetchAsync(ptr, bytes, space.cuda_device(),
                                        space.cuda_stream()));"""
new = """    /* GIGASEG_FIX_PREFETCH: CUDA 13 takes a cudaMemLocation and flags. */
#if CUDART_VERSION >= 13000
    cudaMemLocation location{};
    location.type = cudaMemLocationTypeDevice;
    location.id   = space.cuda_device();
    CUDA_SAFE_CALL(
        cudaMemPrefetchAsync(ptr, bytes, location, 0, space.cuda_stream()));
#else
    CUDA_SAFE_CALL(cudaMemPrefetchAsync(ptr, bytes, space.cuda_device(),
                                        space.cuda_stream()));
#endif"""
s = s.replace(old, new, 1)
'

# (c) No Hopper entry: without one the best choice is AMPERE80, and Kokkos::initialize aborts
#     when its sm_80 kernels meet a CC 9.0 device. Add HOPPER90 -> sm_90, an Ampere-class part for
#     Kokkos's tuning macros.
apply_fix cmake/kokkos_arch.cmake "GIGASEG_FIX_HOPPER" '
s = s.replace("""KOKKOS_ARCH_OPTION(AMPERE86        GPU  "NVIDIA Ampere generation CC 8.6")\n""",
              """KOKKOS_ARCH_OPTION(AMPERE86        GPU  "NVIDIA Ampere generation CC 8.6")\n"""
              """# GIGASEG_FIX_HOPPER: Hopper (H100/H200) support for CUDA >= 12\n"""
              """KOKKOS_ARCH_OPTION(HOPPER90        GPU  "NVIDIA Hopper generation CC 9.0")\n""", 1)
s = s.replace("CHECK_CUDA_ARCH(AMPERE86  sm_86)\n",
              "CHECK_CUDA_ARCH(AMPERE86  sm_86)\nCHECK_CUDA_ARCH(HOPPER90  sm_90)\n", 1)
s = s.replace("IF (KOKKOS_ARCH_AMPERE80 OR KOKKOS_ARCH_AMPERE86)",
              "IF (KOKKOS_ARCH_AMPERE80 OR KOKKOS_ARCH_AMPERE86 OR KOKKOS_ARCH_HOPPER90)", 1)
'

# (d) nvcc_wrapper adds -arch=sm_35 when a compile names no architecture (CMake's own compiler
#     probes do that); nvcc 13 rejects sm_35. Let NVCC_WRAPPER_DEFAULT_ARCH override it.
apply_fix bin/nvcc_wrapper "GIGASEG_FIX_DEFAULT_ARCH" '
s = s.replace("default_arch=\"sm_35\"\n",
              "# GIGASEG_FIX_DEFAULT_ARCH: nvcc >= 12 has no sm_35\n"
              "default_arch=\"${NVCC_WRAPPER_DEFAULT_ARCH:-sm_35}\"\n", 1)
'

# --- Configure, build, install ----------------------------------------------------------------
build=$cache/build/kokkos-3.4.01-$variant
rm -rf "$build" "$prefix"
common=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix"
        -DCMAKE_CXX_STANDARD=17 -DKokkos_ENABLE_SERIAL=ON -DKokkos_ENABLE_OPENMP=ON
        -DKokkos_ENABLE_HWLOC=ON -DKokkos_ENABLE_TESTS=OFF -DKokkos_ENABLE_EXAMPLES=OFF
        -DBUILD_SHARED_LIBS=OFF -DCMAKE_POSITION_INDEPENDENT_CODE=ON)
if [ "$variant" = cuda ]; then
  export NVCC_WRAPPER_DEFAULT_ARCH=sm_90
  export PATH=/usr/local/cuda/bin:$PATH
  cmake -S "$src_root" -B "$build" "${common[@]}" \
    -DCMAKE_CXX_COMPILER="$src_root/bin/nvcc_wrapper" \
    -DKokkos_ENABLE_CUDA=ON -DKokkos_ENABLE_CUDA_LAMBDA=ON -DKokkos_ARCH_HOPPER90=ON
elif [ "$variant" = fuzz ]; then
  cmake -S "$src_root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" \
    -DCMAKE_CXX_STANDARD=17 -DCMAKE_CXX_COMPILER=clang++ -DKokkos_ENABLE_SERIAL=ON \
    -DKokkos_ENABLE_OPENMP=OFF -DKokkos_ENABLE_HWLOC=OFF -DKokkos_ENABLE_TESTS=OFF \
    -DKokkos_ENABLE_EXAMPLES=OFF -DBUILD_SHARED_LIBS=OFF -DCMAKE_POSITION_INDEPENDENT_CODE=ON
else
  cmake -S "$src_root" -B "$build" "${common[@]}" -DCMAKE_CXX_COMPILER=g++
fi
cmake --build "$build" -j "$jobs"
cmake --install "$build"
# nvcc_wrapper is installed to $prefix/bin; consumers use it as their CXX compiler.
touch "$prefix/.complete"
echo "Kokkos ($variant) installed in $prefix"
