#pragma once
// The one dispatch every algorithm uses: resolve the Path, run the backend's tuned specialisation
// when the path is tuned and the specialisation accepts the input, else the portable
// implementation. Each path runs inside a Kokkos profiling region named after the algorithm and
// the path, e.g. `gigaseg::label[cuda]`, `gigaseg::label[openmp]`, `gigaseg::label[portable]`, so
// Kokkos Tools (kernel loggers, space-time stacks) show which one ran.
//
// The tuned specialisations are declared by the backends (algorithms/path.hpp says how); a
// dispatch is instantiated only in the library's instantiation units (backends/instantiate/),
// which include the backends' headers, so the trait seen here is the backend's own.
#include "gigaseg/algorithms/path.hpp"

#include <Kokkos_Core.hpp>

#include <string>
#include <type_traits>
#include <utility>

namespace gigaseg::detail {

// The name profiling regions give a tuned path on `ExecSpace`.
template <class ExecSpace>
constexpr char const* tuned_path_name() {
#ifdef KOKKOS_ENABLE_CUDA
  if constexpr (std::is_same<ExecSpace, Kokkos::Cuda>::value) return "cuda";
#endif
#ifdef KOKKOS_ENABLE_OPENMP
  if constexpr (std::is_same<ExecSpace, Kokkos::OpenMP>::value) return "openmp";
#endif
#ifdef KOKKOS_ENABLE_SERIAL
  if constexpr (std::is_same<ExecSpace, Kokkos::Serial>::value) return "serial";
#endif
  return "tuned";
}

// A Kokkos profiling region for the lifetime of the object (Kokkos::Profiling::ScopedRegion
// exists only from Kokkos 4.1; push/pop exist in every supported version).
class ProfilingRegion {
 public:
  ProfilingRegion(char const* algorithm, char const* path) {
    Kokkos::Profiling::pushRegion(std::string("gigaseg::") + algorithm + "[" + path + "]");
  }
  ~ProfilingRegion() { Kokkos::Profiling::popRegion(); }
  ProfilingRegion(ProfilingRegion const&) = delete;
  ProfilingRegion& operator=(ProfilingRegion const&) = delete;
};

// Runs `Tuned<Algorithm, ExecSpace>::run(space, args...)` when `requested` resolves to the tuned
// path and the run accepts (returns true); otherwise `portable()`. Results travel through the
// arguments (output views, references). A forced tuned path that the space does not have is a
// usage error (resolve_path).
template <class Algorithm, class ExecSpace, class Portable, class... Args>
void dispatch(ExecSpace const& space, Path requested, Portable&& portable, Args&&... args) {
  constexpr bool available = TunedAvailable<Algorithm, ExecSpace>::value;
  Path const path = resolve_path(requested, available, Algorithm::name);
  if constexpr (available) {
    if (path == Path::tuned) {
      ProfilingRegion region(Algorithm::name, tuned_path_name<ExecSpace>());
      if (Tuned<Algorithm, ExecSpace>::run(space, std::forward<Args>(args)...)) return;
    }
  } else {
    (void)space;
    ((void)args, ...);
  }
  ProfilingRegion region(Algorithm::name, "portable");
  portable();
}

}  // namespace gigaseg::detail
