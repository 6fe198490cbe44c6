#pragma once
// Pieces the pipelines' definitions share (algorithms/pipelines/detail/*_impl.hpp): per-stage
// timing, the Otsu foreground mask and the kmeans pipeline's class mask (also the tile engine's,
// engine/tiled_label.cpp).
#include "gigaseg/algorithms/detail/host_arrays.hpp"
#include "gigaseg/algorithms/detail/pixelwise.hpp"
#include "gigaseg/algorithms/histogram.hpp"
#include "gigaseg/algorithms/otsu.hpp"
#include "gigaseg/algorithms/pipelines/foreground.hpp"
#include "gigaseg/core/translation_unit.hpp"

#include <Kokkos_Core.hpp>

#include <chrono>
#include <map>
#include <string>

namespace gigaseg {

namespace pipeline {

// Runs work(), fences `space`, and adds the wall time to timings_ms[name].
template <class ExecSpace, class Work>
void timed(ExecSpace const& space, std::map<std::string, double>& timings_ms, char const* name, Work&& work) {
  auto const start = std::chrono::steady_clock::now();
  work();
  space.fence();
  timings_ms[name] += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// The mask of one side of the threshold t: 255 where gray > t (dark: where gray <= t), else 0.
template <class ExecSpace, class Unit = detail::unit_for<ExecSpace>>
void side_mask(ExecSpace const& space, ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& gray,
               ImageView<std::uint8_t, typename ExecSpace::memory_space> const& mask, int t, bool dark) {
  detail::for_each_row_pixel(
      space, "gigaseg::pipeline::mask", gray.height(), gray.width(),
      KOKKOS_LAMBDA(index_t y, index_t x) { mask(y, x) = (gray(y, x) > t) != dark ? 255 : 0; });
}

// The kmeans pipeline's object class when none is named: the darkest (0) or the brightest (k - 1) as
// `foreground` says, automatically whichever covers fewer pixels (the darkest on a tie).
inline int kmeans_object_class(Foreground foreground, std::uint64_t darkest_pixels, std::uint64_t brightest_pixels,
                               int k) {
  bool const dark =
      foreground == Foreground::dark || (foreground == Foreground::automatic && darkest_pixels <= brightest_pixels);
  return dark ? 0 : k - 1;
}

// The mask of one class of a class map: 255 where classes == object, else 0 (the kmeans pipeline).
template <class ExecSpace, class Unit = detail::unit_for<ExecSpace>>
void class_mask(ExecSpace const& space, ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& classes,
                ImageView<std::uint8_t, typename ExecSpace::memory_space> const& mask, int object) {
  detail::for_each_row_pixel(
      space, "gigaseg::pipeline::class_mask", classes.height(), classes.width(),
      KOKKOS_LAMBDA(index_t y, index_t x) { mask(y, x) = classes(y, x) == object ? 255 : 0; });
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
  auto host_counts =
      detail::host_array<typename Counts<Memory>::non_const_value_type, typename Counts<Memory>::array_layout>(
          "gigaseg::pipeline::histogram[host]", 256);
  timed(space, timings_ms, "otsu", [&] {
    histogram(space, gray, counts);
    Kokkos::deep_copy(space, host_counts, counts);
    space.fence();
    side.threshold = otsu_bin(host_counts.data(), 256);
  });
  index_t above = 0;
  for (int b = side.threshold + 1; b < 256; ++b) above += index_t(host_counts(b));
  side.dark =
      foreground == Foreground::dark || (foreground == Foreground::automatic && above > gray.pixel_count() - above);
  timed(space, timings_ms, "threshold", [&] { side_mask(space, gray, mask, side.threshold, side.dark); });
  return side;
}

}  // namespace pipeline
}  // namespace gigaseg
