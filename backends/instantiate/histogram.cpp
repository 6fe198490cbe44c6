// The library's instances of algorithms/histogram.hpp: the 8-bit histogram(), the binned
// histogram() of 8-bit, 16-bit and float images, and histogram_path(), for every enabled execution
// space, dispatching to the backends' tuned 8-bit histograms.
#include "gigaseg/algorithms/detail/histogram_impl.hpp"
#include "gigaseg/backends/cuda/histogram_cuda.hpp"
#include "gigaseg/backends/instantiate/spaces.hpp"
#include "gigaseg/backends/openmp/histogram_openmp.hpp"

namespace gigaseg {

#define GIGASEG_HISTOGRAM_BINNED(SPACE, T)                                                          \
  template void histogram<SPACE, T>(SPACE const&, ImageView<T const, GIGASEG_MEMORY(SPACE)> const&, \
                                    Counts<GIGASEG_MEMORY(SPACE)> const&, BinRange const&, HistogramParams const&);
#define GIGASEG_HISTOGRAM_SPACE(SPACE)                                                                      \
  template void histogram<SPACE>(SPACE const&, ImageView<std::uint8_t const, GIGASEG_MEMORY(SPACE)> const&, \
                                 Counts<GIGASEG_MEMORY(SPACE)> const&, HistogramParams const&);             \
  GIGASEG_HISTOGRAM_BINNED(SPACE, std::uint8_t)                                                             \
  GIGASEG_HISTOGRAM_BINNED(SPACE, std::uint16_t)                                                            \
  GIGASEG_HISTOGRAM_BINNED(SPACE, float)                                                                    \
  template Path histogram_path<SPACE>(HistogramParams const&);
GIGASEG_FOR_EACH_SPACE(GIGASEG_HISTOGRAM_SPACE)

}  // namespace gigaseg
