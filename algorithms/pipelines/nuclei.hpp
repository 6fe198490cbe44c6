#pragma once
// The `nuclei` pipeline: gray, Otsu threshold, connected components, region statistics,
// with the data on the backend from the first stage to the last; only the statistics table and
// (if asked for) the labels come back. Which side of T is a nucleus: Foreground (algorithms/pipelines/foreground.hpp).
#include "gigaseg/algorithms/label_types.hpp"
#include "gigaseg/algorithms/pipelines/foreground.hpp"
#include "gigaseg/algorithms/region_stats.hpp"
#include "gigaseg/core/image.hpp"

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
NucleiResult segment_nuclei(ExecSpace const& space,
                            ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& gray,
                            ImageView<Label, typename ExecSpace::memory_space> const& labels,
                            NucleiParams const& params = {});

// Defined in the library (algorithms/pipelines/detail/nuclei_impl.hpp) for every enabled
// execution space (backends/instantiate/pipelines.cpp).
}  // namespace gigaseg
