# Finds Kokkos. A Kokkos the user already has always wins (Kokkos_ROOT or CMAKE_PREFIX_PATH); any
# version from 3.4.01 through 5.x is accepted. Without one, the install made by
# scripts/build-kokkos.sh in ~/.cache/gigaseg (or $GIGASEG_CACHE) is used.
set(_gigaseg_cache "$ENV{GIGASEG_CACHE}")
if(NOT _gigaseg_cache)
  set(_gigaseg_cache "$ENV{HOME}/.cache/gigaseg")
endif()

find_package(Kokkos CONFIG QUIET)
if(NOT Kokkos_FOUND)
  # Fallback: the project-built Kokkos. The CUDA variant needs nvcc_wrapper as CMAKE_CXX_COMPILER,
  # which must be set before project(); the `cuda` preset does that.
  if(CMAKE_CXX_COMPILER MATCHES "nvcc_wrapper")
    set(_variant cuda)
  else()
    set(_variant host)
  endif()
  set(_fallback "${_gigaseg_cache}/kokkos-3.4.01-${_variant}")
  find_package(Kokkos CONFIG QUIET PATHS "${_fallback}" NO_DEFAULT_PATH)
  if(NOT Kokkos_FOUND)
    message(FATAL_ERROR
      "gigaseg: no Kokkos found. Either point Kokkos_ROOT at an installed Kokkos (3.4.01 to 5.x), "
      "or build the project's own: `scripts/build-kokkos.sh ${_variant}` (installs into ${_fallback}).")
  endif()
endif()

if(Kokkos_VERSION VERSION_LESS 3.4.01 OR NOT Kokkos_VERSION VERSION_LESS 6.0)
  message(FATAL_ERROR "gigaseg: Kokkos ${Kokkos_VERSION} at ${Kokkos_DIR} is outside the supported 3.4.01 .. 5.x")
endif()

# Kokkos 3.x exports Kokkos_ENABLE_<BACKEND>; 4.x and 5.x export Kokkos_DEVICES as well.
# kokkos_check() exists in all of them and is the documented way to ask.
foreach(_backend CUDA OPENMP SERIAL)
  kokkos_check(DEVICES ${_backend} RETURN_VALUE Kokkos_ENABLE_${_backend})
endforeach()
message(STATUS "gigaseg: Kokkos ${Kokkos_VERSION} from ${Kokkos_DIR} "
               "(CUDA=${Kokkos_ENABLE_CUDA} OpenMP=${Kokkos_ENABLE_OPENMP} Serial=${Kokkos_ENABLE_SERIAL})")
if(NOT Kokkos_ENABLE_OPENMP)
  message(FATAL_ERROR "gigaseg: needs a Kokkos with the OpenMP backend (the host backend and small-image path)")
endif()
