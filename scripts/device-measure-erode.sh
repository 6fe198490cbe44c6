#!/usr/bin/env bash
# On the H200 (after `GIGASEG_PACK="tests/gigaseg_tests apps/gigaseg perf/bench_filters"
# scripts/pack-device.sh` here): the wide-rectangle erosion. The fused and separable
# kernels against cv::erode/cv::dilate (MorphologyCuda test and the Morphology/Cuda suite), under
# compute-sanitizer memcheck and racecheck; then bench_filters, 25-run medians in one program run:
# cudaMemcpy of the image, the 3x3 and 31x31 erosions as `morphology()` runs them, and the wide
# rectangle kernels by name (fused with chains of 2, 4, 12 strips and the automatic one;
# separable; ERODE_FILTER picks others). Summary in $OUT/erode-report.txt, benchmark JSON beside it.
set -u
export LD_LIBRARY_PATH=$PWD/.devbuild/lib GIGASEG_TEST_DATA=$PWD/tests/data
SAN=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null | head -1)
report=$OUT/erode-report.txt
{
  echo "== morphology tests on CUDA"
  timeout 120 .devbuild/gigaseg_tests --gtest_filter='MorphologyCuda.*:Morphology/Cuda.*' --gtest_brief=1 > "$OUT/erode-tests.log" 2>&1
  echo "rc=$?"; grep -E "^\[  (PASSED|FAILED)|Failure|Expected|Which is|roi" "$OUT/erode-tests.log" | head -12
  for tool in memcheck racecheck; do
    timeout 150 "$SAN" --tool "$tool" --error-exitcode 9 .devbuild/gigaseg_tests --gtest_filter='MorphologyCuda.*' \
      > /tmp/san-erode-$tool.log 2>&1
    echo "$tool rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" /tmp/san-erode-$tool.log | head -4
  done
  echo "== bench_filters"
  timeout 200 .devbuild/bench_filters \
    --benchmark_filter="${ERODE_FILTER:-BM_CudaMemcpy|BM_Erode<Kokkos::Cuda>/20000/(3|31)/1|BM_ErodePasses}" \
    --benchmark_out="$OUT/bench_erode.json" --benchmark_out_format=json > /tmp/bench_erode.txt 2>&1
  echo "rc=$?"; grep -E "median|ERROR" /tmp/bench_erode.txt | awk '{print $1, $2, $3}'
} > "$report" 2>&1
cat "$report"
