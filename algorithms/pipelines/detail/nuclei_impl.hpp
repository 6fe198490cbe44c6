#pragma once
// Definition of algorithms/pipelines/nuclei.hpp (instantiated by backends/instantiate/pipelines.cpp).
#include "gigaseg/algorithms/label.hpp"
#include "gigaseg/algorithms/pipelines/detail/stages.hpp"
#include "gigaseg/algorithms/pipelines/nuclei.hpp"
#include "gigaseg/algorithms/region_stats.hpp"

#include <Kokkos_Core.hpp>

namespace gigaseg {

template <class ExecSpace>
NucleiResult segment_nuclei(ExecSpace const& space,
                            ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& gray,
                            ImageView<Label, typename ExecSpace::memory_space> const& labels,
                            NucleiParams const& params) {
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
  stage("stats",
        [&] { result.regions = region_stats(space, ImageView<Label const, Memory>(labels), result.components, gray); });
  return result;
}

}  // namespace gigaseg
