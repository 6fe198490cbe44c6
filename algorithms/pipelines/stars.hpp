#pragma once
// The `stars` pipeline, for sky images (FITS): the background and its noise from the image's
// finite pixels, a threshold a number of noise sigmas above the background, connected components,
// and per source its flux above the background and its flux-weighted centroid.
//
// Background and noise: the median of the finite pixels and 1.4826 x their median absolute
// deviation, clipped three times at 3 sigma (pixels further than 3 sigma from the median left out),
// as SExtractor and photutils estimate a sky without sources; where the MAD is 0 (more than half
// the sky one value, as in an integer image of a faint sky) the noise is the standard deviation of
// the pixels kept. Computed on the host from every pixel, or an even sample of 4,194,304 where
// there are more. A pixel is a source's when it is finite and above background + nsigma x noise:
// NaN (no data) and infinities never are.
//
// Per source, with w = value - background: flux = sum of w; the centroid (sum w x / flux,
// sum w y / flux) with pixel (x, y) at its centre's integer coordinates (so a symmetric star
// centred on pixel (10, 20) has centroid 10, 20, as astropy's and photutils' centroids); the peak
// value; area and inclusive bounding box. The sums run on the host in raster order, in double: the
// same numbers on every backend.
#include "gigaseg/algorithms/label_types.hpp"
#include "gigaseg/core/image.hpp"

#include <Kokkos_Core.hpp>

#include <map>
#include <string>
#include <vector>

namespace gigaseg {

struct StarParams {
  double nsigma = 5;     // the threshold: background + nsigma x noise
  int connectivity = 8;  // 4 or 8
};

struct StarSource {
  Label label = 0;
  index_t area = 0;
  index_t x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // bounding box, inclusive
  double flux = 0;                         // sum of (value - background)
  double cx = 0, cy = 0;                   // flux-weighted centroid
  double peak = 0;                         // the largest value
};

struct StarResult {
  double background = 0, noise = 0, threshold = 0;
  index_t components = 0;
  std::vector<StarSource> sources;           // sources[k].label == k + 1
  std::map<std::string, double> timings_ms;  // per stage, each ending with a fence
};

// `image` on the backend (NaN: no data); `labels` receives the sources. Error(input) naming
// `image` when it has no finite pixel; Error(usage) naming StarParams::nsigma when it is not
// positive.
template <class ExecSpace>
StarResult segment_stars(ExecSpace const& space, ImageView<float const, typename ExecSpace::memory_space> const& image,
                         ImageView<Label, typename ExecSpace::memory_space> const& labels,
                         StarParams const& params = {});

// Background and noise of `pixels` (the finite ones) as above: {median, 1.4826 x MAD}.
std::pair<double, double> sky_background(HostImage<float const> const& pixels);

// Defined in the library (algorithms/pipelines/detail/stars_impl.hpp) for every enabled execution
// space (backends/instantiate/pipelines.cpp).
}  // namespace gigaseg
