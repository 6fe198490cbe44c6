// The library's instances of algorithms/label.hpp: label(), renumber() and label_path() for every enabled
// execution space and 8-, 16- and 32-bit images, dispatching to the backends' tuned labelling.
#include "gigaseg/algorithms/detail/label_impl.hpp"
#include "gigaseg/backends/cuda/label_cuda.hpp"
#include "gigaseg/backends/instantiate/spaces.hpp"
#include "gigaseg/backends/openmp/label_openmp.hpp"

namespace gigaseg {

#define GIGASEG_LABEL(SPACE, T)                                                                    \
  template index_t label<SPACE, T>(SPACE const&, ImageView<T const, GIGASEG_MEMORY(SPACE)> const&, \
                                   ImageView<Label, GIGASEG_MEMORY(SPACE)> const&, LabelParams const&);
#define GIGASEG_LABEL_SPACE(SPACE)                                                                                  \
  GIGASEG_LABEL(SPACE, std::uint8_t)                                                                                \
  GIGASEG_LABEL(SPACE, std::uint16_t)                                                                               \
  GIGASEG_LABEL(SPACE, std::uint32_t)                                                                               \
  template Path label_path<SPACE>(Path);                                                                            \
  template std::vector<index_t> first_pixels<SPACE>(SPACE const&,                                                   \
                                                    ImageView<Label const, GIGASEG_MEMORY(SPACE)> const&, index_t); \
  template void renumber<SPACE>(SPACE const&, ImageView<Label, GIGASEG_MEMORY(SPACE)> const&,                       \
                                std::vector<Label> const&);
GIGASEG_FOR_EACH_SPACE(GIGASEG_LABEL_SPACE)

}  // namespace gigaseg
