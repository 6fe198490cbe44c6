#pragma once
// The public types of algorithms/distance.hpp, in a header of their own so that the backends
// (backends/cuda/distance_cuda.hpp) can declare their tuned specialisations without the
// implementation.
#include "gigaseg/algorithms/path.hpp"
#include "gigaseg/core/image.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace gigaseg {

// The tag of distance_transform() in TunedAvailable / Tuned (algorithms/path.hpp).
struct DistanceAlgorithm {
  static constexpr char const* name = "distance_transform";
};
// The tag of distance_transform_band() (no backend has a tuned path for it).
struct DistanceBandAlgorithm {
  static constexpr char const* name = "distance_transform_band";
};

// Optional outputs of distance_transform(); an empty view is not computed.
template <class MemorySpace>
struct DistanceOutputs {
  ImageView<std::int64_t, MemorySpace> squared;  // exact squared distance
  ImageView<index_t, MemorySpace> nearest;       // y * width + x of the nearest zero pixel
};

// A band of whole rows of a larger image (distance_transform_band): the band's first row is row
// `y` of an image `image_height` rows tall, and zero_above(x) / zero_below(x) are the rows of the
// nearest zero pixels of column x above the band and below it (-1: none), one entry a column.
template <class MemorySpace>
struct DistanceBand {
  index_t y = 0, image_height = 0;
  Kokkos::View<std::int32_t const*, MemorySpace> zero_above, zero_below;
  bool empty() const noexcept { return image_height == 0; }
};

struct DistanceParams {
  Path path = Path::automatic;
};

}  // namespace gigaseg
