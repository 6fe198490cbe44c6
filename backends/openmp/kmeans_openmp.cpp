// The K-means assignment pass on the host (kmeans_openmp.hpp): each thread accumulates privately
// (a Kokkos array reduction), no atomics; Kokkos sums the threads' arrays at the end and writes
// them over the state's sums. Integer sums, so the result is the portable pass's exactly.
#include "gigaseg/backends/openmp/kmeans_openmp.hpp"

#include "gigaseg/core/image.hpp"

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>

namespace gigaseg::tuned {
namespace {

using detail::KMeansPassArgs;
using detail::KMeansState;
using detail::nearest;

// One pass: a row per iteration, the cluster sums (or the inertia) in the thread's own array.
template <class MemorySpace>
struct KMeansHostPass {
  using value_type = std::uint64_t[];
  using size_type = std::size_t;
  KMeansPassArgs<MemorySpace> args;
  size_type value_count;

  void operator()(index_t y, value_type sums) const {
    KMeansState const layout{args.k};
    if (args.state[layout.converged()] != 0 && !args.final_pass) return;
    Rgb8 const* row = args.image.row(y);
    std::uint8_t* out = args.final_pass ? args.labels.row(y) : nullptr;  // an update pass may have no labels
    int const* rank = args.centres + 3 * args.k;
    std::uint64_t const* norms = args.state + layout.norms();
    for (index_t x = 0; x < args.image.width(); ++x) {
      int f[3];
      args.features(row[x], f);
      long long distance;
      int const c = nearest(f, args.centres, norms, args.k, distance);
      if (args.final_pass) {
        out[x] = std::uint8_t(rank[c]);
        sums[4 * args.k] += std::uint64_t(distance);
      } else {
        for (int i = 0; i < 3; ++i) sums[4 * c + i] += std::uint64_t(f[i]);
        sums[4 * c + 3] += 1;
      }
    }
  }
  void init(value_type sums) const {
    for (size_type i = 0; i < value_count; ++i) sums[i] = 0;
  }
  void join(value_type dst, value_type const src) const {
    for (size_type i = 0; i < value_count; ++i) dst[i] += src[i];
  }
#if KOKKOS_VERSION < 40000
  // Kokkos 3 reduces through volatile references on some backends.
  void join(volatile std::uint64_t* dst, volatile std::uint64_t const* src) const {
    for (size_type i = 0; i < value_count; ++i) dst[i] += src[i];
  }
#endif
};

}  // namespace

bool kmeans_pass(Kokkos::OpenMP const& space, detail::KMeansPassArgs<Kokkos::HostSpace> const& args,
                 std::uint64_t* sums_on_host) {
  KMeansState const layout{args.k};
  Kokkos::View<std::uint64_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> sums(sums_on_host,
                                                                                std::size_t(layout.accumulated()));
  KMeansHostPass<Kokkos::HostSpace> pass{args, sums.extent(0)};
  Kokkos::parallel_reduce(
      "gigaseg::kmeans::pass[Host]",
      Kokkos::RangePolicy<Kokkos::OpenMP, Kokkos::IndexType<index_t>>(space, 0, args.image.height()), pass, sums);
  return true;
}

}  // namespace gigaseg::tuned
