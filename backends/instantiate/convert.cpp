// The library's instances of algorithms/convert.hpp: rgb_to_gray(), convert() between every pair
// of 8-, 16- and 32-bit unsigned and float images, pack_mask() of 8-, 16- and 32-bit images and
// unpack_mask(), for every enabled execution space. No backend has a tuned conversion.
#include "gigaseg/algorithms/detail/convert_impl.hpp"
#include "gigaseg/backends/instantiate/spaces.hpp"

namespace gigaseg {

#define GIGASEG_CONVERT(SPACE, T, U)                                                                 \
  template void convert<SPACE, T, U>(SPACE const&, ImageView<T const, GIGASEG_MEMORY(SPACE)> const&, \
                                     ImageView<U, GIGASEG_MEMORY(SPACE)> const&, ConvertParams const&);
#define GIGASEG_CONVERT_FROM(SPACE, T)     \
  GIGASEG_CONVERT(SPACE, T, std::uint8_t)  \
  GIGASEG_CONVERT(SPACE, T, std::uint16_t) \
  GIGASEG_CONVERT(SPACE, T, std::uint32_t) \
  GIGASEG_CONVERT(SPACE, T, float)
#define GIGASEG_PACK_MASK(SPACE, T)                                                                 \
  template void pack_mask<SPACE, T>(SPACE const&, ImageView<T const, GIGASEG_MEMORY(SPACE)> const&, \
                                    ImageView<std::uint32_t, GIGASEG_MEMORY(SPACE)> const&);
#define GIGASEG_CONVERT_SPACE(SPACE)                                                                           \
  template void rgb_to_gray<SPACE>(SPACE const&, ImageView<Rgb8 const, GIGASEG_MEMORY(SPACE)> const&,          \
                                   ImageView<std::uint8_t, GIGASEG_MEMORY(SPACE)> const&);                     \
  template void unpack_mask<SPACE>(SPACE const&, ImageView<std::uint32_t const, GIGASEG_MEMORY(SPACE)> const&, \
                                   ImageView<std::uint8_t, GIGASEG_MEMORY(SPACE)> const&, std::uint8_t);       \
  GIGASEG_PACK_MASK(SPACE, std::uint8_t)                                                                       \
  GIGASEG_PACK_MASK(SPACE, std::uint16_t)                                                                      \
  GIGASEG_PACK_MASK(SPACE, std::uint32_t)                                                                      \
  GIGASEG_CONVERT_FROM(SPACE, std::uint8_t)                                                                    \
  GIGASEG_CONVERT_FROM(SPACE, std::uint16_t)                                                                   \
  GIGASEG_CONVERT_FROM(SPACE, std::uint32_t)                                                                   \
  GIGASEG_CONVERT_FROM(SPACE, float)
GIGASEG_FOR_EACH_SPACE(GIGASEG_CONVERT_SPACE)

}  // namespace gigaseg
