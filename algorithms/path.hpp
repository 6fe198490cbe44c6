#pragma once
// Which implementation of an algorithm runs (Kokkos Kernels style). `tuned` is the backend's
// hand-specialised path (a CUDA kernel in backends/cuda/, a host path in backends/openmp/);
// `portable` is the generic Kokkos implementation in algorithms/detail/. `automatic` takes the
// tuned path where one exists for the execution space and the portable one elsewhere. Tests force
// each path on each backend.
#include "core/error.hpp"

#include <Kokkos_Core.hpp>

#include <string>

namespace gigaseg {

enum class Path { automatic, portable, tuned };

constexpr char const* to_string(Path path) noexcept {
  return path == Path::portable ? "portable" : path == Path::tuned ? "tuned" : "auto";
}

// Resolves `requested` for an algorithm whose tuned path exists on this execution space iff
// `tuned_available`. Asking for a tuned path that does not exist is a usage error.
inline Path resolve_path(Path requested, bool tuned_available, char const* algorithm) {
  if (requested == Path::automatic) return tuned_available ? Path::tuned : Path::portable;
  GIGASEG_REQUIRE(requested != Path::tuned || tuned_available, ErrorKind::usage, algorithm,
                  "no tuned path for this backend (use the portable path)");
  return requested;
}

}  // namespace gigaseg
