// The library's instances of algorithms/threshold.hpp: threshold() for 8-, 16- and 32-bit unsigned
// and float images, and threshold_local_mean(), for every enabled execution space. No backend has a
// tuned threshold.
#include "gigaseg/algorithms/detail/threshold_impl.hpp"
#include "gigaseg/backends/instantiate/spaces.hpp"

namespace gigaseg {

#define GIGASEG_THRESHOLD(SPACE, T)                                                                 \
  template void threshold<SPACE, T>(SPACE const&, ImageView<T const, GIGASEG_MEMORY(SPACE)> const&, \
                                    ImageView<std::uint8_t, GIGASEG_MEMORY(SPACE)> const&, double);
#define GIGASEG_THRESHOLD_SPACE(SPACE)                                                                                 \
  GIGASEG_THRESHOLD(SPACE, std::uint8_t)                                                                               \
  GIGASEG_THRESHOLD(SPACE, std::uint16_t)                                                                              \
  GIGASEG_THRESHOLD(SPACE, std::uint32_t)                                                                              \
  GIGASEG_THRESHOLD(SPACE, float)                                                                                      \
  template void threshold_local_mean<SPACE>(SPACE const&, ImageView<std::uint8_t const, GIGASEG_MEMORY(SPACE)> const&, \
                                            ImageView<std::uint8_t, GIGASEG_MEMORY(SPACE)> const&,                     \
                                            LocalMeanParams const&);
GIGASEG_FOR_EACH_SPACE(GIGASEG_THRESHOLD_SPACE)

}  // namespace gigaseg
