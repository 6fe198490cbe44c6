#pragma once
// Exact Euclidean distance transform: for every nonzero pixel, the distance to
// the nearest zero pixel (0 on zero pixels), as scipy.ndimage.distance_transform_edt computes it,
// with the exact squared distance and the nearest zero pixel's index available.
//
// Algorithm (algorithms/detail/distance_portable.hpp; a tuned CUDA path in backends/cuda/distance_cuda.cpp): Meijster,
// Roerdink and Hesselink's separable exact transform. Pass 1, per column: the row of the nearest zero pixel in that
// column (two scans). Pass 2, per row: the lower envelope of the parabolas (x - i)^2 + g(i)^2 over the columns i (g(i)
// = that column's vertical distance), built and read in one forward and one backward sweep, in exact integer
// arithmetic. Every result is exact; distances are sqrt of the exact squared distance, rounded once to float.
//
// Ties: where several zero pixels are equally near, `nearest` names one of them, the same on every
// backend and run (the same integer algorithm everywhere); within a column the zero pixel above
// wins over the one below.
#include "gigaseg/algorithms/distance_types.hpp"
#include "gigaseg/core/image.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace gigaseg {

// distance(y, x) = Euclidean distance from (y, x) to the nearest pixel with in == 0 (0 there).
// Throws Error(input) when the image has no zero pixel (no distance is defined).
template <class ExecSpace>
void distance_transform(ExecSpace const& space,
                        ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& in,
                        ImageView<float, typename ExecSpace::memory_space> const& distance,
                        DistanceOutputs<typename ExecSpace::memory_space> const& extra = {},
                        DistanceParams const& params = {});

// The path distance_transform() takes on ExecSpace for a requested path.
template <class ExecSpace>
Path distance_path(Path requested);

// Defined in the library (algorithms/detail/distance_impl.hpp) for every enabled execution space
// (backends/instantiate/distance.cpp).
}  // namespace gigaseg
