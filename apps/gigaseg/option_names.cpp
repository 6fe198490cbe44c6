#include "apps/gigaseg/option_names.hpp"

#include <map>

namespace gigaseg::cli {

std::string option_for(std::string const& subject) {
  static std::map<std::string, std::string> const options = {
      {"LabelParams::connectivity", "--connectivity"},
      {"TiledOptions::tile_width", "--tile"},
      {"TiledOptions::group", "mpirun/srun -n (the ranks)"},
      {"TiledOptions::lanes", "--tile-streams"},
      {"TiledOptions::cells_window_halo", "--window-halo"},
      {"filter_tiled(halo)", "--size"},
      {"WatershedParams::connectivity", "--connectivity"},
      {"MarkerParams::connectivity", "--connectivity"},
      {"OutlineParams::simplify", "--simplify"},
      {"MarkerParams::h", "--h"},
      {"MarkerParams::min_separation", "--min-separation"},
      {"background_markers(min_distance)", "--background-distance"},
      {"merge_small_regions(min_area)", "--min-area"},
      {"BinRange::bins", "--bins"},
      {"BinRange::hi", "--range"},
      {"otsu_threshold(bins)", "--bins"},
      {"LocalMeanParams::block", "--method mean"},
      {"median(size)", "--size"},
      {"box_filter(size)", "--size"},
      {"structuring_element(size)", "--size"},
      {"GaussianParams::sigma", "--sigma"},
      {"GaussianParams::ksize", "--ksize"},
      {"convolve(method)", "--method"},
      {"KMeansParams::k", "--k"},
      {"KMeansParams::iterations", "--iters"},
      {"KMeansParams::attempts", "--attempts"},
      {"KMeansParams::tolerance", "--tolerance"},
      {"CellsParams::median_size", "--median"},
      {"CellsParams::open_size", "--open"},
      {"CellsParams::relief", "--relief"},
      {"KMeansSegmentParams::object_class", "--class"},
      {"StarParams::nsigma", "--nsigma"},
      {"SyntheticParams::width", "--size"},
      {"RuntimeOptions::device", "--device"},
      {"RuntimeOptions::threads", "--threads"},
      {"ContextOptions::backend", "--backend"},
      {"BatchOptions::lanes", "--streams"},
      {"BatchOptions::readers", "--readers"},
      {"BatchOptions::writers", "--writers"},
      {"ContextOptions::small_image_pixels", "--small-image-pixels"},
  };
  auto const found = options.find(subject);
  if (found != options.end()) return found->second;
  // Every algorithm's forced path ("label path", "median path", ...) is --path.
  std::string const path_suffix = " path";
  if (subject.size() > path_suffix.size() &&
      subject.compare(subject.size() - path_suffix.size(), path_suffix.size(), path_suffix) == 0)
    return "--path";
  return subject;
}

}  // namespace gigaseg::cli
