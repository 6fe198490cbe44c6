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

// The transform of a band of whole rows of a larger image, for images never whole in memory (the
// tile engine, engine/tiled.hpp): `in` holds rows [band.y, band.y + in.height()) of an image
// band.image_height rows tall and in.width() wide, and `band` the nearest zero pixels above and
// below it in each column. The outputs equal those rows of distance_transform() on the whole image,
// value for value (`nearest` in the whole image's indices): the column pass continues from the
// carries, the row pass needs only whole rows. Error(input) when no column has a zero pixel in the
// band or beyond it; Error(usage) for carries of the wrong length or a band outside its image.
template <class ExecSpace>
void distance_transform_band(ExecSpace const& space,
                             ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& in,
                             DistanceBand<typename ExecSpace::memory_space> const& band,
                             ImageView<float, typename ExecSpace::memory_space> const& distance,
                             DistanceOutputs<typename ExecSpace::memory_space> const& extra = {},
                             DistanceParams const& params = {});

// The path distance_transform() takes on ExecSpace for a requested path.
template <class ExecSpace>
Path distance_path(Path requested);

// Both defined in the library (algorithms/detail/distance_impl.hpp) for every enabled execution space
// (backends/instantiate/distance.cpp).
}  // namespace gigaseg
