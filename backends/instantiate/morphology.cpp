// The library's instances of algorithms/morphology.hpp: morphology() and morphology_path() for every
// enabled execution space, dispatching each erosion and dilation to the backends' tuned passes.
#include "gigaseg/algorithms/detail/morphology_impl.hpp"
#include "gigaseg/backends/cuda/filters_cuda.hpp"
#include "gigaseg/backends/instantiate/spaces.hpp"
#include "gigaseg/backends/openmp/filters_openmp.hpp"

namespace gigaseg {

#define GIGASEG_MORPHOLOGY_SPACE(SPACE)                                                                       \
  template void morphology<SPACE>(SPACE const&, ImageView<std::uint8_t const, GIGASEG_MEMORY(SPACE)> const&,  \
                                  ImageView<std::uint8_t, GIGASEG_MEMORY(SPACE)> const&, MorphParams const&); \
  template Path morphology_path<SPACE>(MorphParams const&);
GIGASEG_FOR_EACH_SPACE(GIGASEG_MORPHOLOGY_SPACE)

}  // namespace gigaseg
