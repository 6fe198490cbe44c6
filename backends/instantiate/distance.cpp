// The library's instances of algorithms/distance.hpp: distance_transform(), distance_transform_band() and
// distance_path() for every enabled execution space, dispatching to the backends' tuned transforms.
#include "gigaseg/algorithms/detail/distance_impl.hpp"
#include "gigaseg/backends/cuda/distance_cuda.hpp"
#include "gigaseg/backends/instantiate/spaces.hpp"

namespace gigaseg {

#define GIGASEG_DISTANCE_SPACE(SPACE)                                                                                \
  template void distance_transform<SPACE>(SPACE const&, ImageView<std::uint8_t const, GIGASEG_MEMORY(SPACE)> const&, \
                                          ImageView<float, GIGASEG_MEMORY(SPACE)> const&,                            \
                                          DistanceOutputs<GIGASEG_MEMORY(SPACE)> const&, DistanceParams const&);     \
  template void distance_transform_band<SPACE>(                                                                      \
      SPACE const&, ImageView<std::uint8_t const, GIGASEG_MEMORY(SPACE)> const&,                                     \
      DistanceBand<GIGASEG_MEMORY(SPACE)> const&, ImageView<float, GIGASEG_MEMORY(SPACE)> const&,                    \
      DistanceOutputs<GIGASEG_MEMORY(SPACE)> const&, DistanceParams const&);                                         \
  template Path distance_path<SPACE>(Path);
GIGASEG_FOR_EACH_SPACE(GIGASEG_DISTANCE_SPACE)

}  // namespace gigaseg
