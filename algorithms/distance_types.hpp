#pragma once
// The public types of algorithms/distance.hpp, in a header of their own so that the backends
// (backends/cuda/distance_cuda.hpp) can declare their tuned specialisations without the
// implementation.
#include "gigaseg/algorithms/path.hpp"
#include "gigaseg/core/image.hpp"

#include <cstdint>

namespace gigaseg {

// The tag of distance_transform() in TunedAvailable / Tuned (algorithms/path.hpp).
struct DistanceAlgorithm {
  static constexpr char const* name = "distance_transform";
};

// Optional outputs of distance_transform(); an empty view is not computed.
template <class MemorySpace>
struct DistanceOutputs {
  ImageView<std::int64_t, MemorySpace> squared;  // exact squared distance
  ImageView<index_t, MemorySpace> nearest;       // y * width + x of the nearest zero pixel
};

struct DistanceParams {
  Path path = Path::automatic;
};

}  // namespace gigaseg
