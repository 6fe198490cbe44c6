#pragma once
// The `nuclei` pipeline (seed 000): gray, Otsu threshold, connected components, region statistics,
// with the data on the backend from the first stage to the last; only the statistics table and
// (if asked for) the labels come back. Which side of T is a nucleus: Foreground (stages.hpp).
#include "algorithms/label.hpp"
#include "algorithms/pipelines/stages.hpp"
#include "algorithms/region_stats.hpp"

#include <Kokkos_Core.hpp>

#include <map>
#include <string>
#include <vector>

namespace gigaseg {

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
  auto stage = [&](char const* name, auto&& work) { pipeline::timed(space, result.timings_ms, name, work); };
  ImageView<std::uint8_t, Memory> mask("gigaseg::nuclei::mask", gray.width(), gray.height());
  pipeline::OtsuSide const side = pipeline::otsu_mask(space, gray, mask, params.foreground, result.timings_ms);
  result.threshold = side.threshold;
  result.dark = side.dark;
  stage("label", [&] {
    LabelParams label_params;
    label_params.connectivity = params.connectivity;
    result.components = label(space, ImageView<std::uint8_t const, Memory>(mask), labels, label_params);
  });
  stage("stats", [&] { result.regions = region_stats(space, ImageView<Label const, Memory>(labels), result.components, gray); });
  return result;
}

}  // namespace gigaseg
