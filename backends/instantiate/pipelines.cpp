// The library's instances of the pipelines (algorithms/pipelines/cells.hpp, nuclei.hpp,
// kmeans_segment.hpp, stars.hpp) for every enabled execution space. The pipelines call only public
// algorithms, which the library instantiates in the other units of backends/instantiate/.
#include "gigaseg/algorithms/pipelines/detail/cells_impl.hpp"
#include "gigaseg/algorithms/pipelines/detail/kmeans_segment_impl.hpp"
#include "gigaseg/algorithms/pipelines/detail/nuclei_impl.hpp"
#include "gigaseg/algorithms/pipelines/detail/stars_impl.hpp"
#include "gigaseg/backends/instantiate/spaces.hpp"

namespace gigaseg {

#define GIGASEG_PIPELINES_SPACE(SPACE)                                                                                 \
  template CellsResult segment_cells<SPACE>(SPACE const&, ImageView<std::uint8_t const, GIGASEG_MEMORY(SPACE)> const&, \
                                            ImageView<Label, GIGASEG_MEMORY(SPACE)> const&, CellsParams const&);       \
  template void segment_cells_from_mask<SPACE>(                                                                        \
      SPACE const&, ImageView<std::uint8_t const, GIGASEG_MEMORY(SPACE)> const&,                                       \
      ImageView<std::uint8_t const, GIGASEG_MEMORY(SPACE)> const&, ImageView<float, GIGASEG_MEMORY(SPACE)> const&,     \
      ImageView<Label, GIGASEG_MEMORY(SPACE)> const&, ImageView<Label, GIGASEG_MEMORY(SPACE)> const&,                  \
      CellsParams const&, CellsResult&, CellsPart const&);                                                             \
  template NucleiResult segment_nuclei<SPACE>(SPACE const&,                                                            \
                                              ImageView<std::uint8_t const, GIGASEG_MEMORY(SPACE)> const&,             \
                                              ImageView<Label, GIGASEG_MEMORY(SPACE)> const&, NucleiParams const&);    \
  template KMeansSegmentResult segment_kmeans<SPACE>(                                                                  \
      SPACE const&, ImageView<Rgb8 const, GIGASEG_MEMORY(SPACE)> const&,                                               \
      ImageView<Label, GIGASEG_MEMORY(SPACE)> const&, KMeansSegmentParams const&);                                     \
  template StarResult segment_stars<SPACE>(SPACE const&, ImageView<float const, GIGASEG_MEMORY(SPACE)> const&,         \
                                           ImageView<Label, GIGASEG_MEMORY(SPACE)> const&, StarParams const&);
GIGASEG_FOR_EACH_SPACE(GIGASEG_PIPELINES_SPACE)

}  // namespace gigaseg
