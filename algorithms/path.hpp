#pragma once
// Which implementation of an algorithm runs, and how a backend declares that it has a tuned one
// (the Kokkos Kernels pattern of an availability trait beside the specialisation).
//
// `Path::tuned` is the backend's hand-specialised code (a CUDA kernel in backends/cuda/, a host
// path in backends/openmp/); `Path::portable` is the generic Kokkos implementation in
// algorithms/detail/; `Path::automatic` takes the tuned path where the execution space has one and
// the portable one elsewhere. Tests force each path on each backend.
//
// A backend with a tuned path for an algorithm declares, in its own header, next to the code:
//   template <> struct TunedAvailable<LabelAlgorithm, Kokkos::OpenMP> : std::true_type {};
//   template <> struct Tuned<LabelAlgorithm, Kokkos::OpenMP> { static bool run(...); };
// where run() returns false, doing nothing, when a precondition of the tuned code fails (the
// caller then takes the portable path). The one dispatch (algorithms/detail/dispatch.hpp) asks
// the trait; the library's explicit instantiations (backends/instantiate/) are the only
// translation units that see both, so the algorithm layer never includes a backend.
#include "gigaseg/core/error.hpp"

#include <Kokkos_Core.hpp>

#include <string>
#include <type_traits>
#include <utility>

namespace gigaseg {

enum class Path { automatic, portable, tuned };

constexpr char const* to_string(Path path) noexcept {
  return path == Path::portable ? "portable" : path == Path::tuned ? "tuned" : "auto";
}

// Whether `ExecSpace` has a tuned specialisation of `Algorithm` (a tag type with a `name`).
template <class Algorithm, class ExecSpace>
struct TunedAvailable : std::false_type {};

// The tuned specialisation itself; defined only by backends whose TunedAvailable is true.
template <class Algorithm, class ExecSpace>
struct Tuned;

// Declares, inside namespace gigaseg, that SPACE has a tuned ALGORITHM whose entry points are the
// overloads FUNCTION(space, ...) -> bool (false: declined, take the portable path).
#define GIGASEG_DECLARE_TUNED(ALGORITHM, SPACE, FUNCTION)      \
  template <>                                                  \
  struct TunedAvailable<ALGORITHM, SPACE> : std::true_type {}; \
  template <>                                                  \
  struct Tuned<ALGORITHM, SPACE> {                             \
    template <class... Args>                                   \
    static bool run(SPACE const& space, Args&&... args) {      \
      return FUNCTION(space, std::forward<Args>(args)...);     \
    }                                                          \
  }

// Resolves `requested` for an algorithm whose tuned path exists on this execution space iff
// `tuned_available`. Asking for a tuned path that does not exist is a usage error naming the
// algorithm's `path` parameter.
inline Path resolve_path(Path requested, bool tuned_available, char const* algorithm) {
  if (requested == Path::automatic) return tuned_available ? Path::tuned : Path::portable;
  GIGASEG_REQUIRE(requested != Path::tuned || tuned_available, ErrorKind::usage, std::string(algorithm) + " path",
                  "no tuned path for this backend (use the portable path)");
  return requested;
}

// The path `Algorithm` takes on `ExecSpace` for a requested path.
template <class Algorithm, class ExecSpace>
Path resolved_path(Path requested) {
  return resolve_path(requested, TunedAvailable<Algorithm, ExecSpace>::value, Algorithm::name);
}

}  // namespace gigaseg
