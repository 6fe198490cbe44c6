#pragma once
// The backends every test runs on (Cabana-style category header): each TYPED_TEST is instantiated
// once per enabled Kokkos execution space, named after it, so ctest can select them with
// --gtest_filter='*/OpenMP.*' and run the OpenMP ones with 1 and with 2 threads.
#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <string>

namespace gigaseg::test {

#if defined(KOKKOS_ENABLE_SERIAL) && defined(KOKKOS_ENABLE_CUDA)
using Backends = ::testing::Types<Kokkos::Serial, Kokkos::OpenMP, Kokkos::Cuda>;
#elif defined(KOKKOS_ENABLE_SERIAL)
using Backends = ::testing::Types<Kokkos::Serial, Kokkos::OpenMP>;
#elif defined(KOKKOS_ENABLE_CUDA)
using Backends = ::testing::Types<Kokkos::OpenMP, Kokkos::Cuda>;
#else
using Backends = ::testing::Types<Kokkos::OpenMP>;
#endif

struct BackendName {
  template <class ExecSpace>
  static std::string GetName(int) {
    return ExecSpace::name();  // "Serial", "OpenMP", "Cuda"
  }
};

}  // namespace gigaseg::test

#define GIGASEG_BACKEND_TEST_SUITE(suite) \
  TYPED_TEST_SUITE(suite, ::gigaseg::test::Backends, ::gigaseg::test::BackendName)
