#!/usr/bin/env bash
# On the H200 (after scripts/pack-device.sh): the whole suite, racecheck and memcheck of the labelling,
# statistics and K-means kernels, and the K-means and labelling benchmarks alone (JSON under $OUT).
set -u; mkdir -p /tmp/l; export LD_LIBRARY_PATH=$PWD/.devbuild/lib OMP_NUM_THREADS=2
.devbuild/gigaseg_tests > /tmp/l/unit.log 2>&1; echo "unit rc=$?"; tail -3 /tmp/l/unit.log; grep -E "^\[  FAILED" /tmp/l/unit.log | head
compute-sanitizer --tool racecheck --error-exitcode 9 .devbuild/gigaseg_tests --gtest_filter='LabelOnBackend/Cuda.Region*:LabelOnBackend/Cuda.AdversarialImages*:KMeansOnBackend/Cuda.Pitched*:KMeansOnBackend/Cuda.SameSeed*' > /tmp/l/race.log 2>&1; echo "racecheck rc=$?"; grep "SUMMARY" /tmp/l/race.log
compute-sanitizer --tool memcheck --error-exitcode 9 .devbuild/gigaseg_tests --gtest_filter='KMeansOnBackend/Cuda.*:LabelOnBackend/Cuda.*:-*TwentyRuns*' > /tmp/l/mem.log 2>&1; echo "memcheck rc=$?"; grep "SUMMARY" /tmp/l/mem.log
OMP_NUM_THREADS=16 .devbuild/bench_pixel_ops --benchmark_filter='KMeans|CudaMemcpy' --benchmark_out=$OUT/pixel_ops_final.json --benchmark_out_format=json > /tmp/l/b1.log 2>&1
OMP_NUM_THREADS=16 .devbuild/bench_label --benchmark_filter='BM_Label<Kokkos::Cuda>' --benchmark_out=$OUT/label_final.json --benchmark_out_format=json > /tmp/l/b2.log 2>&1
grep -h "_median" /tmp/l/b1.log /tmp/l/b2.log | cut -c1-110
