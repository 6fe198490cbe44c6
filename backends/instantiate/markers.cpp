// The library's instances of algorithms/markers.hpp: distance_markers(), background_markers(),
// merge_small_regions(), h_maxima_tile(), regional_maxima_tile() and markers_path() for every enabled execution space,
// dispatching distance_markers()'s propagations to the backends' tuned ones.
#include "gigaseg/algorithms/detail/markers_impl.hpp"
#include "gigaseg/backends/instantiate/spaces.hpp"
#include "gigaseg/backends/openmp/markers_openmp.hpp"

namespace gigaseg {

#define GIGASEG_MARKERS_SPACE(SPACE)                                                                                 \
  template index_t distance_markers<SPACE>(SPACE const&, ImageView<float const, GIGASEG_MEMORY(SPACE)> const&,       \
                                           ImageView<Label, GIGASEG_MEMORY(SPACE)> const&, MarkerParams const&);     \
  template index_t background_markers<SPACE>(SPACE const&,                                                           \
                                             ImageView<std::uint8_t const, GIGASEG_MEMORY(SPACE)> const&,            \
                                             ImageView<Label, GIGASEG_MEMORY(SPACE)> const&, float, Label);          \
  template index_t merge_small_regions<SPACE>(SPACE const&, ImageView<Label, GIGASEG_MEMORY(SPACE)> const&, index_t, \
                                              index_t);                                                              \
  template void h_maxima_tile<SPACE>(SPACE const&, ImageView<float const, GIGASEG_MEMORY(SPACE)> const&,             \
                                     ImageView<float, GIGASEG_MEMORY(SPACE)> const&, MarkerParams const&);           \
  template void regional_maxima_tile<SPACE>(SPACE const&, ImageView<float const, GIGASEG_MEMORY(SPACE)> const&,      \
                                            ImageView<float const, GIGASEG_MEMORY(SPACE)> const&,                    \
                                            ImageView<std::uint8_t, GIGASEG_MEMORY(SPACE)> const&,                   \
                                            MarkerParams const&);                                                    \
  template Path markers_path<SPACE>(Path);
GIGASEG_FOR_EACH_SPACE(GIGASEG_MARKERS_SPACE)

}  // namespace gigaseg
