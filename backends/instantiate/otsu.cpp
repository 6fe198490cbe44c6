// The library's instances of algorithms/otsu.hpp: otsu_threshold() and value_range() for every
// enabled execution space and 8-bit, 16-bit and float images. No backend has a tuned Otsu; the
// histogram is the library's (backends/instantiate/histogram.cpp).
#include "gigaseg/algorithms/detail/otsu_impl.hpp"
#include "gigaseg/backends/instantiate/spaces.hpp"

namespace gigaseg {

#define GIGASEG_OTSU(SPACE, T)                                                                                  \
  template double otsu_threshold<SPACE, T>(SPACE const&, ImageView<T const, GIGASEG_MEMORY(SPACE)> const&, int, \
                                           HistogramParams const&);                                             \
  template Kokkos::pair<double, double> value_range<SPACE, T>(SPACE const&,                                     \
                                                              ImageView<T const, GIGASEG_MEMORY(SPACE)> const&);
#define GIGASEG_OTSU_SPACE(SPACE)                                                                               \
  template int otsu_threshold<SPACE>(SPACE const&, ImageView<std::uint8_t const, GIGASEG_MEMORY(SPACE)> const&, \
                                     HistogramParams const&);                                                   \
  GIGASEG_OTSU(SPACE, std::uint8_t)                                                                             \
  GIGASEG_OTSU(SPACE, std::uint16_t)                                                                            \
  GIGASEG_OTSU(SPACE, float)
GIGASEG_FOR_EACH_SPACE(GIGASEG_OTSU_SPACE)

}  // namespace gigaseg
