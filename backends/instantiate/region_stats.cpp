// The library's instances of algorithms/region_stats.hpp: region_stats(), region_totals() and region_stats_path()
// for every enabled execution space and 8- and 16-bit intensities, dispatching to the backends'
// tuned region statistics.
#include "gigaseg/algorithms/detail/region_stats_impl.hpp"
#include "gigaseg/backends/cuda/region_stats_cuda.hpp"
#include "gigaseg/backends/instantiate/spaces.hpp"
#include "gigaseg/backends/openmp/region_stats_openmp.hpp"

namespace gigaseg {

#define GIGASEG_REGION_STATS(SPACE, T)                                             \
  template std::vector<RegionStats> region_stats<SPACE, T>(                        \
      SPACE const&, ImageView<Label const, GIGASEG_MEMORY(SPACE)> const&, index_t, \
      ImageView<T const, GIGASEG_MEMORY(SPACE)> const&, Path);                     \
  template std::vector<RegionTotals> region_totals<SPACE, T>(                      \
      SPACE const&, ImageView<Label const, GIGASEG_MEMORY(SPACE)> const&, index_t, \
      ImageView<T const, GIGASEG_MEMORY(SPACE)> const&, Path);
#define GIGASEG_REGION_STATS_SPACE(SPACE)    \
  GIGASEG_REGION_STATS(SPACE, std::uint8_t)  \
  GIGASEG_REGION_STATS(SPACE, std::uint16_t) \
  template Path region_stats_path<SPACE>(Path);
GIGASEG_FOR_EACH_SPACE(GIGASEG_REGION_STATS_SPACE)

}  // namespace gigaseg
