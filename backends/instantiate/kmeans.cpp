// The library's instances of algorithms/kmeans.hpp: kmeans(), kmeans_path() and a KMeansModel's passes
// (kmeans_add_sums, kmeans_assign) for every enabled execution space, dispatching the assignment pass to the backends'
// tuned passes.
#include "gigaseg/algorithms/detail/kmeans_impl.hpp"
#include "gigaseg/backends/cuda/kmeans_cuda.hpp"
#include "gigaseg/backends/instantiate/spaces.hpp"
#include "gigaseg/backends/openmp/kmeans_openmp.hpp"

namespace gigaseg {

#define GIGASEG_KMEANS_SPACE(SPACE)                                                                                \
  template KMeansResult kmeans<SPACE>(SPACE const&, ImageView<Rgb8 const, GIGASEG_MEMORY(SPACE)> const&,           \
                                      ImageView<std::uint8_t, GIGASEG_MEMORY(SPACE)> const&, KMeansParams const&); \
  template Path kmeans_path<SPACE>(Path);                                                                          \
  template void kmeans_add_sums<SPACE>(SPACE const&, ImageView<Rgb8 const, GIGASEG_MEMORY(SPACE)> const&,          \
                                       KMeansModel const&, std::vector<std::uint64_t>&);                           \
  template std::uint64_t kmeans_assign<SPACE>(SPACE const&, ImageView<Rgb8 const, GIGASEG_MEMORY(SPACE)> const&,   \
                                              KMeansModel const&,                                                  \
                                              ImageView<std::uint8_t, GIGASEG_MEMORY(SPACE)> const&);
GIGASEG_FOR_EACH_SPACE(GIGASEG_KMEANS_SPACE)

}  // namespace gigaseg
