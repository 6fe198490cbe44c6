#pragma once
// The closed set of execution spaces the library instantiates its algorithms for: every one of
// Serial, OpenMP and Cuda that the Kokkos in use enables. GIGASEG_FOR_EACH_SPACE(M) expands
// M(Kokkos::Serial) M(Kokkos::OpenMP) M(Kokkos::Cuda), leaving out the disabled ones.
#include "gigaseg/gigaseg_config.hpp"

#include <Kokkos_Core.hpp>

#ifdef KOKKOS_ENABLE_SERIAL
#define GIGASEG_IF_SERIAL(M) M(Kokkos::Serial)
#else
#define GIGASEG_IF_SERIAL(M)
#endif
#ifdef KOKKOS_ENABLE_OPENMP
#define GIGASEG_IF_OPENMP(M) M(Kokkos::OpenMP)
#else
#define GIGASEG_IF_OPENMP(M)
#endif
#ifdef KOKKOS_ENABLE_CUDA
#define GIGASEG_IF_CUDA(M) M(Kokkos::Cuda)
#else
#define GIGASEG_IF_CUDA(M)
#endif

#define GIGASEG_FOR_EACH_SPACE(M) GIGASEG_IF_SERIAL(M) GIGASEG_IF_OPENMP(M) GIGASEG_IF_CUDA(M)

// The memory space of an execution space, for the instantiation lists.
#define GIGASEG_MEMORY(SPACE) SPACE::memory_space
