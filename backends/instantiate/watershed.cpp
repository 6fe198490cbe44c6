// The library's instances of algorithms/watershed.hpp: watershed(), watershed_tile() and watershed_path() for every
// enabled execution space and 8-bit, 16-bit and float reliefs, dispatching to the backends' tuned
// watersheds.
#include "gigaseg/algorithms/detail/watershed_impl.hpp"
#include "gigaseg/backends/instantiate/spaces.hpp"
#include "gigaseg/backends/openmp/watershed_openmp.hpp"

namespace gigaseg {

#define GIGASEG_WATERSHED(SPACE, T)                                                                              \
  template void watershed<SPACE, T>(SPACE const&, ImageView<T const, GIGASEG_MEMORY(SPACE)> const&,              \
                                    ImageView<Label const, GIGASEG_MEMORY(SPACE)> const&,                        \
                                    ImageView<Label, GIGASEG_MEMORY(SPACE)> const&, WatershedParams const&,      \
                                    ImageView<std::uint8_t const, GIGASEG_MEMORY(SPACE)> const&);                \
  template void watershed_tile<SPACE, T>(SPACE const&, ImageView<T const, GIGASEG_MEMORY(SPACE)> const&,         \
                                         ImageView<Label const, GIGASEG_MEMORY(SPACE)> const&,                   \
                                         ImageView<std::uint64_t, GIGASEG_MEMORY(SPACE)> const&,                 \
                                         ImageView<Label, GIGASEG_MEMORY(SPACE)> const&, WatershedParams const&, \
                                         ImageView<std::uint8_t const, GIGASEG_MEMORY(SPACE)> const&);
#define GIGASEG_WATERSHED_SPACE(SPACE)    \
  GIGASEG_WATERSHED(SPACE, std::uint8_t)  \
  GIGASEG_WATERSHED(SPACE, std::uint16_t) \
  GIGASEG_WATERSHED(SPACE, float)         \
  template Path watershed_path<SPACE>(Path);
GIGASEG_FOR_EACH_SPACE(GIGASEG_WATERSHED_SPACE)

}  // namespace gigaseg
