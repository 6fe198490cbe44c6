// The main() of every benchmark program: Kokkos through gigaseg::Runtime around Google Benchmark.
#include "gigaseg/core/runtime.hpp"

#include <benchmark/benchmark.h>

int main(int argc, char** argv) {
  gigaseg::Runtime runtime;
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
