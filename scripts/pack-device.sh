#!/usr/bin/env bash
# Packs the CUDA build's executables and the shared libraries they need that a plain CUDA image
# lacks (libtiff and its codecs, libpng, hwloc, Google Benchmark) into .devbuild/ (git-ignored),
# for running on a GPU machine without this machine's packages. glibc, libstdc++, libgcc and the
# CUDA driver are the target's own.
# GIGASEG_PACK="tests/gigaseg_tests apps/gigaseg ..." picks the executables (default: all of them).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build/cuda-bench}
out=$root/.devbuild
rm -rf "$out" && mkdir -p "$out/lib"
for exe in ${GIGASEG_PACK:-tests/gigaseg_tests apps/gigaseg perf/bench_foundation perf/bench_pixel_ops perf/bench_label perf/bench_filters perf/bench_distance perf/bench_crossover}; do
  [ -x "$build/$exe" ] && cp "$build/$exe" "$out/"
done
for exe in "$out"/*; do  # the carry limit is 64 MiB
  [ -f "$exe" ] && [ -x "$exe" ] && { strip "$exe" 2>/dev/null || true; }
done
cp -r "$root/tests/cli" "$out/cli"
cp "$root/perf/report.py" "$out/"
# The cross-backend test's photographs (python3-skimage's samples; GIGASEG_PHOTOS=.devbuild/photos).
mkdir -p "$out/photos"
for photo in camera coins cell astronaut ihc; do
  cp "/usr/lib/python3/dist-packages/skimage/data/$photo.png" "$out/photos/"
done
cp -r "$root/perf/peers" "$out/peers"
for exe in "$out"/gigaseg_tests "$out"/gigaseg "$out"/bench_*; do
  [ -x "$exe" ] || continue
  ldd "$exe" | awk '$3 ~ /^\// {print $3}'
done | sort -u | while read -r lib; do
  case $(basename "$lib") in
    libc.so*|libm.so*|libstdc++.so*|libgcc_s.so*|ld-linux*|libdl.so*|libpthread.so*|librt.so*|libcuda.so*|libcudart.so*|libcufft*) ;;
    *) cp -L "$lib" "$out/lib/" ;;
  esac
done
# A build with MPI carries Debian's OpenMPI runtime as its packages (3.6 MB), which
# scripts/device-mpi-env.sh unpacks there.
if ldd "$out/gigaseg" 2>/dev/null | grep -q libmpi; then
  mkdir -p "$out/mpi"
  (cd "$out/mpi" && apt-get download openmpi-bin libopenmpi3 openmpi-common libpmix2 libevent-core-2.1-7 \
    libevent-pthreads-2.1-7 >/dev/null 2>&1)
fi
du -sh "$out"
# The carry to the GPU machine is limited to 64 MiB: past 60 MB, pack it as one gzip tarball,
# which the device command unpacks first (`tar -xzf .devbuild/devbuild.tgz -C .devbuild`).
if [ "$(du -sb "$out" | cut -f1)" -gt 60000000 ]; then
  tar -czf "$root/devbuild.tgz" -C "$out" . && rm -rf "${out:?}"/* && mv "$root/devbuild.tgz" "$out/"
  echo "packed as .devbuild/devbuild.tgz ($(du -sh "$out/devbuild.tgz" | cut -f1)): unpack it on the device first"
fi
