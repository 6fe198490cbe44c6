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
#include <vector>

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

// K-means of an image seen in parts: the tiles of an image larger than memory (engine/tiled.hpp),
// the shares of several processes. The centres, inertia and labels equal kmeans()'s on the whole
// image: every step is kmeans()'s own (the sample drawn by the same counters over the whole image's
// raster indices, k-means++ on it, the update), and the passes' sums are integers, which add up
// alike in any order and grouping. One attempt at a time, the host holding the model:
//   KMeansModel model = kmeans_model(params, width, height, attempt);
//   model.sample[i] = the pixel at raster index model.sample_pixels[i], for every i;
//   kmeans_initialise(model);
//   while (!model.done()) {
//     std::vector<std::uint64_t> sums(kmeans_sums_size(k));   // zero
//     kmeans_add_sums(space, part, model, sums) for every part (or for its colour histogram);
//     kmeans_update(model, sums);
//   }
//   kmeans_assign(space, part, model, labels) for every part: its labels and share of the inertia;
//   model.result(sum of the shares).
// kmeans() runs attempts 0 .. params.attempts - 1 this way and keeps the least inertia (the earlier
// attempt on a tie).
struct KMeansModel {
  KMeansParams params;
  int attempt = 0;
  std::uint64_t seed = 0;  // the attempt's
  index_t width = 0, height = 0;
  std::vector<index_t> sample_pixels;  // raster indices (y * width + x) of the sample, in draw order
  std::vector<Rgb8> sample;            // their pixels, filled by the caller
  std::vector<int> centres;            // 3k fixed point (1/256 feature unit), then the k ranks (once done)
  std::vector<std::uint64_t> state;    // detail::KMeansState's layout: norms, sums, inertia, flag, steps

  bool done() const;  // converged within the tolerance, or params.iterations update steps run
  // The run's result once done, with the parts' inertia (1/65536 feature units^2) summed.
  KMeansResult result(std::uint64_t inertia) const;
};

// The model of attempt `attempt` (0 .. params.attempts - 1) for a width x height image: its seed
// and sample indices. Error(usage) for parameters kmeans() refuses, Error(input) for an empty image.
KMeansModel kmeans_model(KMeansParams const& params, index_t width, index_t height, int attempt = 0);
// k-means++ on model.sample, on the host: the initial centres kmeans() takes.
void kmeans_initialise(KMeansModel& model);
// The words of a pass's sums: four per cluster (feature sums, count), then the inertia.
inline std::size_t kmeans_sums_size(int k) { return 4 * std::size_t(k) + 1; }
// One update step from the sums of every part (kmeans_sums_size words); ranks the centres once done.
void kmeans_update(KMeansModel& model, std::vector<std::uint64_t> const& sums);

// The members of `part` summed into `sums` (kmeans_sums_size words, added to): one part's share of
// an update pass with the model's current centres.
template <class ExecSpace>
void kmeans_add_sums(ExecSpace const& space, ImageView<Rgb8 const, typename ExecSpace::memory_space> const& part,
                     KMeansModel const& model, std::vector<std::uint64_t>& sums);
// A part given as the histogram of its colours (`counts[i]` pixels of colour `colours[i]`), on the
// host's execution space: the sums kmeans_add_sums gives on those pixels. K-means' passes depend on
// a pixel's colour only, so an image's colour histogram stands for the image in every update step
// (at most 2^24 colours, however many pixels).
void kmeans_add_sums(KMeansModel const& model, std::vector<Rgb8> const& colours,
                     std::vector<std::uint64_t> const& counts, std::vector<std::uint64_t>& sums);
// The final assignment of such a part (done models only): each class's pixels added to
// `class_pixels` (k entries, label order); returns the part's share of the inertia.
std::uint64_t kmeans_assign(KMeansModel const& model, std::vector<Rgb8> const& colours,
                            std::vector<std::uint64_t> const& counts, std::vector<std::uint64_t>& class_pixels);
// labels(y, x) = the rank of the pixel's nearest final centre (done models only); returns the
// part's share of the inertia (1/65536 feature units^2). Fences `space`.
template <class ExecSpace>
std::uint64_t kmeans_assign(ExecSpace const& space, ImageView<Rgb8 const, typename ExecSpace::memory_space> const& part,
                            KMeansModel const& model,
                            ImageView<std::uint8_t, typename ExecSpace::memory_space> const& labels);

// Defined in the library (algorithms/detail/kmeans_impl.hpp) for every enabled execution space
// (backends/instantiate/kmeans.cpp; the model's host steps in algorithms/kmeans.cpp); the tuned passes are
// backends/openmp/kmeans_openmp.cpp and backends/cuda/kmeans_cuda.cpp.
}  // namespace gigaseg
