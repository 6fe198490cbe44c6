#!/usr/bin/env bash
# Fuzzes the image readers with libFuzzer (clang), one reader after the other.
#
#   scripts/fuzz.sh [SECONDS] [READER...]    # default: 20 s each, readers png tiff pnm fits
#
# Builds a Serial-only Kokkos with clang (scripts/build-kokkos.sh fuzz, cached) and the fuzz
# targets of tests/fuzz in build/fuzz, then runs each reader for SECONDS with AddressSanitizer,
# UndefinedBehaviorSanitizer and leak detection, starting from the committed corpus
# tests/fuzz/corpus/<reader>. New inputs go to build/fuzz/corpus-<reader>; a crash, hang
# (10 s per input), leak, allocation past 2 GiB or 3 GiB resident stops the run, leaves the input in
# build/fuzz/artifacts-<reader>/ and makes this script fail. CI runs GIGASEG_FUZZ_RUNS=30000 (below)
# as a smoke test; the 10-minute runs behind docs/robustness.md are `scripts/fuzz.sh 600`.
#
# GIGASEG_FUZZ_MERGE=1 adds the new inputs that extend coverage to the committed corpus.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
seconds=${1:-20}
shift || true
readers=("$@")
[ ${#readers[@]} -gt 0 ] || readers=(png tiff pnm fits)
cache=${GIGASEG_CACHE:-$HOME/.cache/gigaseg}
command -v clang++ >/dev/null || { echo "fuzz.sh: clang++ not found (scripts/install-deps.sh installs clang)" >&2; exit 1; }

"$here/build-kokkos.sh" fuzz
build=$root/build/fuzz
cmake -S "$root/tests/fuzz" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_PREFIX_PATH="$cache/kokkos-3.4.01-fuzz" >/dev/null
cmake --build "$build" --target $(printf 'fuzz_read_%s ' "${readers[@]}")

# GIGASEG_FUZZ_RUNS=N: N inputs a reader from a fixed seed instead of SECONDS (reproducible: CI).
if [ -n "${GIGASEG_FUZZ_RUNS:-}" ]; then
  limit=(-runs="$GIGASEG_FUZZ_RUNS" -seed=1)
  seconds="$GIGASEG_FUZZ_RUNS inputs"
else
  limit=(-max_total_time="$seconds")
  seconds="$seconds s"
fi
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0
for reader in "${readers[@]}"; do
  work=$build/corpus-$reader artifacts=$build/artifacts-$reader
  mkdir -p "$work" "$artifacts"
  echo "== fuzzing the $reader reader for $seconds"
  if ! "$build/fuzz_read_$reader" "$work" "$root/tests/fuzz/corpus/$reader" "${limit[@]}" \
      -timeout=10 -malloc_limit_mb=2048 -rss_limit_mb=3072 -max_len=65536 -print_final_stats=1 -artifact_prefix="$artifacts/" \
      2>"$build/fuzz-$reader.log"; then
    status=1
    echo "fuzz.sh: the $reader reader failed; input in $artifacts/, log in $build/fuzz-$reader.log" >&2
    grep -E "ERROR|SUMMARY|Test unit written" "$build/fuzz-$reader.log" >&2 || tail -20 "$build/fuzz-$reader.log" >&2
    continue
  fi
  grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb|cov: .*corp:" "$build/fuzz-$reader.log" | tail -3
  if [ "${GIGASEG_FUZZ_MERGE:-0}" = 1 ]; then
    "$build/fuzz_read_$reader" -merge=1 "$root/tests/fuzz/corpus/$reader" "$work" 2>/dev/null
  fi
done
exit $status
