#pragma once
// K-means colour segmentation, deterministic on every backend and run.
//
// Exactness by construction: features are small integers (8-bit RGB, BT.601 gray, or CIE Lab
// scaled to 0..255 like OpenCV's 8-bit Lab, computed with integer arithmetic and tables built on
// the host), centres are fixed point (1/256 feature unit), distances and per-cluster sums are
// integers. So assignments, sums and centres are identical whatever the order of the parallel
// reduction: the same seed gives the same result on CUDA, OpenMP and Serial.
//
// Initialisation: greedy k-means++ (2 + ln K trials per centre, as scikit-learn does) on a
// seeded sample of pixels (counter-based draws, so every backend samples the same pixels), in one
// team on the backend itself. Iterations: each pass assigns every pixel to its nearest
// centre (ties to the lower index) and sums each cluster's members in the same pass; the sums are
// reduced in fast memory first (per warp and then per block in the tuned CUDA kernel, per team in
// scratch in the portable pass, per thread on host backends) and only the partial sums are
// combined globally (per-pixel global atomics would serialise on a few counters). The centre
// update, the convergence test and the final ranking run on the backend too, so the loop needs no
// host round trip. An empty cluster keeps its centre. Output labels are numbered by ascending
// centre luminance (exact integer 299 R + 587 G + 114 B; L* for Lab, the value for gray).
#include "gigaseg/algorithms/kmeans_types.hpp"
#include "gigaseg/core/image.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace gigaseg {

// labels(y, x) in 0..k-1. Fences `space` (returns host data). The initialisation and the
// iterations run on `space` without a host round trip.
template <class ExecSpace>
KMeansResult kmeans(ExecSpace const& space, ImageView<Rgb8 const, typename ExecSpace::memory_space> const& image,
                    ImageView<std::uint8_t, typename ExecSpace::memory_space> const& labels,
                    KMeansParams const& params);

// The pass kmeans() takes on ExecSpace for a requested path.
template <class ExecSpace>
Path kmeans_path(Path requested);

// Defined in the library (algorithms/detail/kmeans_impl.hpp) for every enabled execution space
// (backends/instantiate/kmeans.cpp); the tuned passes are backends/openmp/kmeans_openmp.cpp and
// backends/cuda/kmeans_cuda.cpp.
}  // namespace gigaseg
