#pragma once
// Definition of algorithms/pipelines/stars.hpp (instantiated by backends/instantiate/pipelines.cpp).
#include "gigaseg/algorithms/detail/pixelwise.hpp"
#include "gigaseg/algorithms/label.hpp"
#include "gigaseg/algorithms/pipelines/detail/stages.hpp"
#include "gigaseg/algorithms/pipelines/stars.hpp"
#include "gigaseg/core/error.hpp"
#include "gigaseg/core/transfer.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace gigaseg {

template <class ExecSpace>
StarResult segment_stars(ExecSpace const& space, ImageView<float const, typename ExecSpace::memory_space> const& image,
                         ImageView<Label, typename ExecSpace::memory_space> const& labels, StarParams const& params) {
  using Memory = typename ExecSpace::memory_space;
  GIGASEG_REQUIRE(params.nsigma > 0 && std::isfinite(params.nsigma), ErrorKind::usage, "StarParams::nsigma",
                  "must be a number above 0");
  StarResult result;
  auto stage = [&](char const* name, auto&& work) { pipeline::timed(space, result.timings_ms, name, work); };
  // The sky and the sums are the host's, in raster order: the same numbers on every backend.
  HostImage<float> host("gigaseg::stars::image", image.width(), image.height());
  stage("download", [&] { copy(space, host, image); });
  stage("background", [&] {
    auto const [background, noise] = sky_background(host);
    result.background = background;
    result.noise = noise;
    result.threshold = background + params.nsigma * noise;
  });
  ImageView<std::uint8_t, Memory> mask("gigaseg::stars::mask", image.width(), image.height());
  stage("threshold", [&] {
    // Finite and above the threshold: NaN fails the first test, infinity the second.
    float const level = float(result.threshold), largest = std::numeric_limits<float>::max();
    detail::for_each_row_pixel(
        space, "gigaseg::stars::mask", image.height(), image.width(), KOKKOS_LAMBDA(index_t y, index_t x) {
          float const v = image(y, x);
          mask(y, x) = v > level && v <= largest ? std::uint8_t(255) : std::uint8_t(0);
        });
  });
  stage("label", [&] {
    LabelParams label_params;
    label_params.connectivity = params.connectivity;
    result.components = label(space, ImageView<std::uint8_t const, Memory>(mask), labels, label_params);
  });
  stage("stats", [&] {
    HostImage<Label> host_labels("gigaseg::stars::labels", labels.width(), labels.height());
    copy(space, host_labels, labels);
    space.fence();
    std::vector<StarSource>& sources = result.sources;
    sources.resize(std::size_t(result.components));
    std::vector<double> wx(sources.size(), 0.0), wy(sources.size(), 0.0);
    for (std::size_t k = 0; k < sources.size(); ++k) {
      sources[k].label = Label(k + 1);
      sources[k].x0 = sources[k].y0 = std::numeric_limits<index_t>::max();
      sources[k].peak = -std::numeric_limits<double>::infinity();
    }
    for (index_t y = 0; y < host.height(); ++y)
      for (index_t x = 0; x < host.width(); ++x) {
        Label const l = host_labels(y, x);
        if (l == 0) continue;
        StarSource& s = sources[l - 1];
        double const v = host(y, x), w = v - result.background;
        s.area += 1;
        s.x0 = std::min(s.x0, x);
        s.y0 = std::min(s.y0, y);
        s.x1 = std::max(s.x1, x);
        s.y1 = std::max(s.y1, y);
        s.flux += w;
        wx[l - 1] += w * double(x);
        wy[l - 1] += w * double(y);
        s.peak = std::max(s.peak, v);
      }
    for (std::size_t k = 0; k < sources.size(); ++k) {
      sources[k].cx = sources[k].flux > 0 ? wx[k] / sources[k].flux : 0;
      sources[k].cy = sources[k].flux > 0 ? wy[k] / sources[k].flux : 0;
    }
  });
  return result;
}

}  // namespace gigaseg
