#pragma once
// Pieces the pipelines share: per-stage timing and the Otsu foreground mask.
#include "algorithms/detail/host_arrays.hpp"
#include "algorithms/detail/pixelwise.hpp"
#include "algorithms/histogram.hpp"
#include "algorithms/otsu.hpp"
#include "core/translation_unit.hpp"

#include <Kokkos_Core.hpp>

#include <chrono>
#include <map>
#include <string>

namespace gigaseg {

// Which side of a threshold is the object: `bright` (pixel > T, fluorescence such as DAPI), `dark`
// (pixel <= T, brightfield stains such as hematoxylin) or `automatic`: the side with fewer pixels,
// since cells and nuclei cover less of a slide than what surrounds them (an assumption stated in
// docs/cli.md; pass the side explicitly when it does not hold).
enum class Foreground { automatic, bright, dark };

namespace pipeline {

// Runs work(), fences `space`, and adds the wall time to timings_ms[name].
template <class ExecSpace, class Work>
void timed(ExecSpace const& space, std::map<std::string, double>& timings_ms, char const* name, Work&& work) {
  auto const start = std::chrono::steady_clock::now();
  work();
  space.fence();
  timings_ms[name] += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

struct OtsuSide {
  int threshold = 0;
  bool dark = false;  // the side taken
};

// Otsu's threshold of `gray` (stage "otsu") and the mask of the chosen side, 255 / 0 (stage
// "threshold").
template <class ExecSpace, class Unit = detail::unit_for<ExecSpace>>
OtsuSide otsu_mask(ExecSpace const& space, ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& gray,
                   ImageView<std::uint8_t, typename ExecSpace::memory_space> const& mask, Foreground foreground,
                   std::map<std::string, double>& timings_ms) {
  using Memory = typename ExecSpace::memory_space;
  OtsuSide side;
  Counts<Memory> counts("gigaseg::pipeline::histogram", 256);
  auto host_counts = detail::host_array<typename Counts<Memory>::non_const_value_type, typename Counts<Memory>::array_layout>(
      "gigaseg::pipeline::histogram[host]", 256);
  timed(space, timings_ms, "otsu", [&] {
    histogram(space, gray, counts);
    Kokkos::deep_copy(space, host_counts, counts);
    space.fence();
    side.threshold = otsu_bin(host_counts.data(), 256);
  });
  index_t above = 0;
  for (int b = side.threshold + 1; b < 256; ++b) above += index_t(host_counts(b));
  side.dark = foreground == Foreground::dark || (foreground == Foreground::automatic && above > gray.pixel_count() - above);
  timed(space, timings_ms, "threshold", [&] {
    int const t = side.threshold;
    bool const dark = side.dark;
    detail::for_each_row_pixel(space, "gigaseg::pipeline::mask", gray.height(), gray.width(),
                               KOKKOS_LAMBDA(index_t y, index_t x) { mask(y, x) = (gray(y, x) > t) != dark ? 255 : 0; });
  });
  return side;
}

}  // namespace pipeline
}  // namespace gigaseg
