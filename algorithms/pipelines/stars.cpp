// sky_background (algorithms/pipelines/stars.hpp): median and MAD of the finite pixels, clipped
// three times at 3 sigma; where the MAD is 0 (more than half the sky one value), the standard
// deviation of the pixels kept.
#include "gigaseg/algorithms/pipelines/stars.hpp"

#include "gigaseg/core/error.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace gigaseg {
namespace {

double median_of(std::vector<float>& values) {
  std::size_t const n = values.size();
  auto const middle = values.begin() + std::ptrdiff_t(n / 2);
  std::nth_element(values.begin(), middle, values.end());
  double const upper = *middle;
  if (n % 2 == 1) return upper;
  double const lower = *std::max_element(values.begin(), middle);
  return (lower + upper) / 2;
}

}  // namespace

std::pair<double, double> sky_background(HostImage<float const> const& pixels) {
  index_t const total = pixels.pixel_count();
  // An even sample where the image is larger: every step-th pixel in raster order.
  index_t const step = std::max<index_t>(1, (total + (index_t(1) << 22) - 1) / (index_t(1) << 22));
  std::vector<float> sample;
  sample.reserve(std::size_t(std::min<index_t>(total, index_t(1) << 22)));
  for (index_t i = 0; i < total; i += step) {
    float const v = pixels(i / pixels.width(), i % pixels.width());
    if (std::isfinite(v)) sample.push_back(v);
  }
  GIGASEG_REQUIRE(!sample.empty(), ErrorKind::input, pixels.label(), "the image has no finite pixel (all no data)");
  double median = 0, sigma = 0;
  std::vector<float> kept = sample, deviations;
  for (int round = 0; round < 4; ++round) {
    std::vector<float> work = kept;
    median = median_of(work);
    deviations.resize(kept.size());
    for (std::size_t i = 0; i < kept.size(); ++i) deviations[i] = float(std::fabs(double(kept[i]) - median));
    sigma = 1.4826 * median_of(deviations);
    if (sigma == 0) {  // more than half the sky one value (an integer sky): its standard deviation
      double sum = 0, squares = 0;
      for (float v : kept) sum += v, squares += double(v) * double(v);
      double const mean = sum / double(kept.size());
      sigma = std::sqrt(std::max(0.0, squares / double(kept.size()) - mean * mean));
      break;
    }
    if (round == 3) break;
    std::vector<float> clipped;
    for (float v : sample)
      if (std::fabs(double(v) - median) <= 3 * sigma) clipped.push_back(v);
    if (clipped.size() == kept.size() || clipped.empty()) break;
    kept = std::move(clipped);
  }
  return {median, sigma};
}

}  // namespace gigaseg
