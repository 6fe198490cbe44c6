#include "gigaseg/algorithms/watershed.hpp"

#include "gigaseg/algorithms/convert.hpp"
#include "gigaseg/algorithms/detail/watershed_flood.hpp"
#include "gigaseg/core/error.hpp"

#include <string>
#include <vector>

namespace gigaseg {

template <class T>
void watershed_flood(ImageView<T const, Kokkos::HostSpace> const& relief,
                     ImageView<Label const, Kokkos::HostSpace> const& markers,
                     ImageView<Label, Kokkos::HostSpace> const& out, WatershedParams const& params,
                     ImageView<std::uint8_t const, Kokkos::HostSpace> const& mask) {
  GIGASEG_REQUIRE(params.connectivity == 4 || params.connectivity == 8, ErrorKind::usage,
                  "WatershedParams::connectivity",
                  "connectivity must be 4 or 8, got " + std::to_string(params.connectivity));
  index_t const width = relief.width(), height = relief.height();
  detail::require_same_size("watershed", width, height, markers.width(), markers.height());
  detail::require_same_size("watershed", width, height, out.width(), out.height());
  bool const masked = !mask.empty();
  if (masked) detail::require_same_size("watershed", width, height, mask.width(), mask.height());
  auto inside = [&](index_t y, index_t x) { return !masked || mask(y, x) != 0; };
  std::vector<index_t> seeds;
  for (index_t y = 0; y < height; ++y)
    for (index_t x = 0; x < width; ++x) {
      out(y, x) = 0;
      if (markers(y, x) != 0 && inside(y, x)) seeds.push_back(y * width + x);
    }
  std::vector<std::uint64_t> key(std::size_t(width * height), detail::WatershedKey<T>::unreached);
  detail::RadixHeap<index_t> heap;
  auto key_at = [&](index_t y, index_t x) -> std::uint64_t& { return key[std::size_t(y * width + x)]; };
  detail::flood_by_key(relief, markers, out, params.connectivity, seeds, inside, key_at, heap);
}

#define GIGASEG_WATERSHED_FLOOD(T)                                                                     \
  template void watershed_flood<T>(ImageView<T const, Kokkos::HostSpace> const&,                       \
                                   ImageView<Label const, Kokkos::HostSpace> const&,                   \
                                   ImageView<Label, Kokkos::HostSpace> const&, WatershedParams const&, \
                                   ImageView<std::uint8_t const, Kokkos::HostSpace> const&);
GIGASEG_WATERSHED_FLOOD(std::uint8_t)
GIGASEG_WATERSHED_FLOOD(std::uint16_t)
GIGASEG_WATERSHED_FLOOD(float)
#undef GIGASEG_WATERSHED_FLOOD

}  // namespace gigaseg
