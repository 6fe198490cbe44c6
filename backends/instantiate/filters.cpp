// The library's instances of algorithms/filters.hpp: median() and median_path() for 8-bit, 16-bit
// and float images, gaussian(), box_filter(), sobel_magnitude() and sobel_path(), for every enabled
// execution space, dispatching to the backends' tuned filters.
#include "gigaseg/algorithms/detail/filters_impl.hpp"
#include "gigaseg/backends/cuda/filters_cuda.hpp"
#include "gigaseg/backends/instantiate/spaces.hpp"
#include "gigaseg/backends/openmp/filters_openmp.hpp"

namespace gigaseg {

#define GIGASEG_MEDIAN(SPACE, T)                                                                        \
  template void median<SPACE, T>(SPACE const&, ImageView<T const, GIGASEG_MEMORY(SPACE)> const&,        \
                                 ImageView<T, GIGASEG_MEMORY(SPACE)> const&, int, FilterParams const&); \
  template Path median_path<SPACE, T>(FilterParams const&);
#define GIGASEG_FILTERS_SPACE(SPACE)                                                                              \
  GIGASEG_MEDIAN(SPACE, std::uint8_t)                                                                             \
  GIGASEG_MEDIAN(SPACE, std::uint16_t)                                                                            \
  GIGASEG_MEDIAN(SPACE, float)                                                                                    \
  template void gaussian<SPACE>(SPACE const&, ImageView<std::uint8_t const, GIGASEG_MEMORY(SPACE)> const&,        \
                                ImageView<std::uint8_t, GIGASEG_MEMORY(SPACE)> const&, GaussianParams const&);    \
  template void box_filter<SPACE>(SPACE const&, ImageView<std::uint8_t const, GIGASEG_MEMORY(SPACE)> const&,      \
                                  ImageView<std::uint8_t, GIGASEG_MEMORY(SPACE)> const&, int);                    \
  template void sobel_magnitude<SPACE>(SPACE const&, ImageView<std::uint8_t const, GIGASEG_MEMORY(SPACE)> const&, \
                                       ImageView<float, GIGASEG_MEMORY(SPACE)> const&, FilterParams const&);      \
  template Path sobel_path<SPACE>(FilterParams const&);
GIGASEG_FOR_EACH_SPACE(GIGASEG_FILTERS_SPACE)

}  // namespace gigaseg
