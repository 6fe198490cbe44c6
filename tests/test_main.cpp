// Test driver: Kokkos is initialised once for the whole run through gigaseg::Runtime. The number
// of OpenMP threads comes from OMP_NUM_THREADS (ctest sets 1 and 2, see tests/CMakeLists.txt).
#include "core/runtime.hpp"

#include <gtest/gtest.h>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  gigaseg::Runtime runtime;
  return RUN_ALL_TESTS();
}
