#pragma once
// The `nuclei` pipeline (seed 000): gray, Otsu threshold, connected components, region statistics,
// with the data on the backend from the first stage to the last; only the statistics table and
// (if asked for) the labels come back.
//
// Which side of T is a nucleus: `bright` (pixel > T, fluorescence such as DAPI), `dark`
// (pixel <= T, brightfield stains such as hematoxylin) or `automatic`: the side with fewer pixels,
// since nuclei cover less of a slide than what surrounds them (an assumption stated in docs/cli.md;
// pass the side explicitly when it does not hold).
#include "algorithms/detail/pixelwise.hpp"
#include "algorithms/histogram.hpp"
#include "algorithms/label.hpp"
#include "algorithms/otsu.hpp"
#include "algorithms/region_stats.hpp"

#include <Kokkos_Core.hpp>

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace gigaseg {

enum class Foreground { automatic, bright, dark };

struct NucleiParams {
  Foreground foreground = Foreground::automatic;
  int connectivity = 8;
};

struct NucleiResult {
  int threshold = 0;
  bool dark = false;  // the side taken
  index_t components = 0;
  std::vector<RegionStats> regions;
  std::map<std::string, double> timings_ms;  // per stage, each ending with a fence
};

// `gray` is the image on the backend; `labels` receives the components.
template <class ExecSpace>
NucleiResult segment_nuclei(ExecSpace const& space, ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& gray,
                            ImageView<Label, typename ExecSpace::memory_space> const& labels,
                            NucleiParams const& params = {}) {
  using Memory = typename ExecSpace::memory_space;
  NucleiResult result;
  auto stage = [&](char const* name, auto&& work) {
    auto const start = std::chrono::steady_clock::now();
    work();
    space.fence();
    result.timings_ms[name] += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  };
  Counts<Memory> counts("gigaseg::nuclei::histogram", 256);
  auto host_counts = Kokkos::create_mirror_view(counts);
  stage("otsu", [&] {
    histogram(space, gray, counts);
    Kokkos::deep_copy(space, host_counts, counts);
    space.fence();
    result.threshold = otsu_bin(host_counts.data(), 256);
  });
  index_t above = 0;
  for (int b = result.threshold + 1; b < 256; ++b) above += index_t(host_counts(b));
  result.dark = params.foreground == Foreground::dark ||
                (params.foreground == Foreground::automatic && above > gray.pixel_count() - above);
  ImageView<std::uint8_t, Memory> mask("gigaseg::nuclei::mask", gray.width(), gray.height());
  stage("threshold", [&] {
    int const t = result.threshold;
    bool const dark = result.dark;
    detail::for_each_row_pixel(space, "gigaseg::nuclei::mask", gray.height(), gray.width(),
                               KOKKOS_LAMBDA(index_t y, index_t x) {
                                 mask(y, x) = (gray(y, x) > t) != dark ? 255 : 0;
                               });
  });
  stage("label", [&] {
    LabelParams label_params;
    label_params.connectivity = params.connectivity;
    result.components = label(space, ImageView<std::uint8_t const, Memory>(mask), labels, label_params);
  });
  stage("stats", [&] { result.regions = region_stats(space, ImageView<Label const, Memory>(labels), result.components, gray); });
  return result;
}

}  // namespace gigaseg
