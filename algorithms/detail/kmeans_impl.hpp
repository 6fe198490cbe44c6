#pragma once
// Implementation of algorithms/kmeans.hpp.
#include "algorithms/detail/kmeans_features.hpp"
#include "core/error.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

namespace gigaseg {
namespace detail {

// Accumulator layout of one pass: per cluster the three feature sums and the count, then the
// total squared distance (in 1/65536 feature units^2). All unsigned 64-bit integers.
KOKKOS_INLINE_FUNCTION int accumulator_size(int k) { return 4 * k + 1; }

// Nearest centre of feature f (ties to the lower index) and its squared distance. Centres are
// fixed point, 1/256 feature unit.
template <class Centres>
KOKKOS_INLINE_FUNCTION int nearest(int const f[3], Centres const& centres, int k, int channels, long long& best) {
  int label = 0;
  best = -1;
  for (int c = 0; c < k; ++c) {
    long long d = 0;
    for (int i = 0; i < channels; ++i) {
      long long const e = 256LL * f[i] - centres(3 * c + i);
      d += e * e;
    }
    if (best < 0 || d < best) best = d, label = c;
  }
  return label;
}

// One pass on a GPU-like space: team scratch accumulators, one global merge per team.
template <class ExecSpace>
void kmeans_pass_teams(ExecSpace const& space, ImageView<Rgb8 const, typename ExecSpace::memory_space> const& image,
                       ImageView<std::uint8_t, typename ExecSpace::memory_space> const& labels,
                       FeatureMap<typename ExecSpace::memory_space> const& features,
                       Kokkos::View<int const*, typename ExecSpace::memory_space> const& centres,
                       Kokkos::View<std::uint64_t*, typename ExecSpace::memory_space> const& accumulators, int k) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  using Sums = Kokkos::View<unsigned long long*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  using Local = Kokkos::View<int*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  index_t const height = image.height(), width = image.width();
  int const size = accumulator_size(k), channels = features.channels();
  int const league = int(std::max<index_t>(1, std::min<index_t>(height, space.concurrency() / 256)));
  Policy policy(space, league, Kokkos::AUTO);
  policy.set_scratch_size(0, Kokkos::PerTeam(Sums::shmem_size(size) + Local::shmem_size(3 * k)));
  Kokkos::parallel_for(
      "gigaseg::kmeans::pass[Teams]", policy, KOKKOS_LAMBDA(Member const& member) {
        Sums sums(member.team_scratch(0), size);
        Local local_centres(member.team_scratch(0), 3 * k);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(member, size), [&](int i) { sums(i) = 0; });
        Kokkos::parallel_for(Kokkos::TeamThreadRange(member, 3 * k), [&](int i) { local_centres(i) = centres(i); });
        member.team_barrier();
        for (index_t y = member.league_rank(); y < height; y += member.league_size()) {
          Rgb8 const* row = image.row(y);
          std::uint8_t* out = labels.row(y);
          Kokkos::parallel_for(Kokkos::TeamThreadRange(member, width), [&](index_t x) {
            int f[3];
            features(row[x], f);
            long long distance;
            int const c = nearest(f, local_centres, k, channels, distance);
            out[x] = std::uint8_t(c);
            for (int i = 0; i < channels; ++i) Kokkos::atomic_add(&sums(4 * c + i), (unsigned long long)f[i]);
            Kokkos::atomic_add(&sums(4 * c + 3), 1ULL);
            Kokkos::atomic_add(&sums(4 * k), (unsigned long long)distance);
          });
        }
        member.team_barrier();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(member, size), [&](int i) {
          if (sums(i) != 0) Kokkos::atomic_add(&accumulators(i), std::uint64_t(sums(i)));
        });
      });
}

// One pass on a host space: each thread accumulates privately (a Kokkos array reduction), no
// atomics; Kokkos sums the threads' arrays at the end.
template <class MemorySpace>
struct KMeansHostPass {
  using value_type = std::uint64_t[];
  using size_type = std::size_t;
  ImageView<Rgb8 const, MemorySpace> image;
  ImageView<std::uint8_t, MemorySpace> labels;
  FeatureMap<MemorySpace> features;
  Kokkos::View<int const*, MemorySpace> centres;
  int k;
  size_type value_count;

  void operator()(index_t y, value_type sums) const {
    Rgb8 const* row = image.row(y);
    std::uint8_t* out = labels.row(y);
    int const channels = features.channels();
    for (index_t x = 0; x < image.width(); ++x) {
      int f[3];
      features(row[x], f);
      long long distance;
      int const c = nearest(f, centres, k, channels, distance);
      out[x] = std::uint8_t(c);
      for (int i = 0; i < channels; ++i) sums[4 * c + i] += std::uint64_t(f[i]);
      sums[4 * c + 3] += 1;
      sums[4 * k] += std::uint64_t(distance);
    }
  }
  void init(value_type sums) const {
    for (size_type i = 0; i < value_count; ++i) sums[i] = 0;
  }
  void join(value_type dst, value_type const src) const {
    for (size_type i = 0; i < value_count; ++i) dst[i] += src[i];
  }
#if KOKKOS_VERSION < 40000
  // Kokkos 3 reduces through volatile references on some backends.
  void join(volatile std::uint64_t* dst, volatile std::uint64_t const* src) const {
    for (size_type i = 0; i < value_count; ++i) dst[i] += src[i];
  }
#endif
};

template <class ExecSpace>
void kmeans_pass(ExecSpace const& space, ImageView<Rgb8 const, typename ExecSpace::memory_space> const& image,
                 ImageView<std::uint8_t, typename ExecSpace::memory_space> const& labels,
                 FeatureMap<typename ExecSpace::memory_space> const& features,
                 Kokkos::View<int const*, typename ExecSpace::memory_space> const& centres,
                 Kokkos::View<std::uint64_t*, typename ExecSpace::memory_space> const& accumulators, int k) {
  using Memory = typename ExecSpace::memory_space;
  if constexpr (Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible) {
    KMeansHostPass<Memory> pass{image, labels, features, centres, k, std::size_t(accumulator_size(k))};
    Kokkos::parallel_reduce("gigaseg::kmeans::pass[Host]",
                            Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_t>>(space, 0, image.height()), pass,
                            accumulators);
  } else {
    Kokkos::deep_copy(space, accumulators, 0);
    kmeans_pass_teams(space, image, labels, features, centres, accumulators, k);
  }
}

using FeatureVector = std::array<int, 3>;

inline long long squared_distance(FeatureVector const& a, FeatureVector const& b, int channels) {
  long long d = 0;
  for (int i = 0; i < channels; ++i) d += (long long)(a[i] - b[i]) * (a[i] - b[i]);
  return d;
}

// Greedy k-means++ on the sampled features (host, so identical for every backend).
inline std::vector<FeatureVector> kmeans_plus_plus(std::vector<FeatureVector> const& sample, int k, int channels,
                                                   std::mt19937_64& rng) {
  std::size_t const n = sample.size();
  std::vector<FeatureVector> chosen{sample[rng() % n]};
  std::vector<long long> nearest_d(n);
  for (std::size_t i = 0; i < n; ++i) nearest_d[i] = squared_distance(sample[i], chosen[0], channels);
  int const trials = 2 + int(std::log(double(k)));
  while (int(chosen.size()) < k) {
    long long const total = std::accumulate(nearest_d.begin(), nearest_d.end(), 0LL);
    std::size_t best = 0;
    long long best_potential = -1;
    for (int t = 0; t < trials; ++t) {
      std::size_t candidate = 0;
      if (total == 0) {
        candidate = rng() % n;
      } else {
        // D^2 sampling: the first sample whose cumulative distance passes a uniform draw.
        long long const target = (long long)(std::uniform_real_distribution<double>(0.0, 1.0)(rng) * double(total));
        long long running = 0;
        for (candidate = 0; candidate + 1 < n; ++candidate)
          if ((running += nearest_d[candidate]) > target) break;
      }
      long long potential = 0;
      for (std::size_t i = 0; i < n; ++i)
        potential += std::min(nearest_d[i], squared_distance(sample[i], sample[candidate], channels));
      if (best_potential < 0 || potential < best_potential) best_potential = potential, best = candidate;
    }
    chosen.push_back(sample[best]);
    for (std::size_t i = 0; i < n; ++i)
      nearest_d[i] = std::min(nearest_d[i], squared_distance(sample[i], sample[best], channels));
  }
  return chosen;
}

}  // namespace detail

template <class ExecSpace>
KMeansResult kmeans(ExecSpace const& space, ImageView<Rgb8 const, typename ExecSpace::memory_space> const& image,
                    ImageView<std::uint8_t, typename ExecSpace::memory_space> const& labels, KMeansParams const& params) {
  using Memory = typename ExecSpace::memory_space;
  GIGASEG_REQUIRE(params.k >= 1 && params.k <= max_clusters, ErrorKind::usage, "--k",
                  "must be between 1 and " + std::to_string(max_clusters));
  GIGASEG_REQUIRE(params.iterations >= 1, ErrorKind::usage, "--iters", "must be at least 1");
  GIGASEG_REQUIRE(image.width() == labels.width() && image.height() == labels.height(), ErrorKind::input, "kmeans",
                  "labels and image sizes differ");
  GIGASEG_REQUIRE(!image.empty(), ErrorKind::input, "kmeans", "empty image");
  int const k = params.k;
  index_t const pixels = image.pixel_count();

  // Feature tables on the host and the backend.
  auto const host_tables_vector = detail::lab_tables();
  Kokkos::View<int*, Kokkos::HostSpace> host_tables("gigaseg::kmeans::tables_host", host_tables_vector.size());
  std::copy(host_tables_vector.begin(), host_tables_vector.end(), host_tables.data());
  auto tables = Kokkos::create_mirror_view_and_copy(Memory(), host_tables);
  detail::FeatureMap<Memory> const features{params.space, tables, detail::lab_matrix()};
  detail::FeatureMap<Kokkos::HostSpace> const host_features{params.space, host_tables, detail::lab_matrix()};
  int const channels = features.channels();

  // Seeded sample of pixels, gathered on the backend.
  std::mt19937_64 rng(params.seed);
  index_t const samples = std::min<index_t>(pixels, std::max(params.init_sample, k));
  Kokkos::View<index_t*, Kokkos::HostSpace> host_indices("gigaseg::kmeans::sample_indices", std::size_t(samples));
  for (index_t i = 0; i < samples; ++i) host_indices(i) = index_t(rng() % std::uint64_t(pixels));
  auto indices = Kokkos::create_mirror_view_and_copy(Memory(), host_indices);
  Kokkos::View<Rgb8*, Memory> gathered("gigaseg::kmeans::sample", std::size_t(samples));
  index_t const width = image.width();
  Kokkos::parallel_for(
      "gigaseg::kmeans::gather", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_t>>(space, 0, samples),
      KOKKOS_LAMBDA(index_t i) { gathered(i) = image(indices(i) / width, indices(i) % width); });
  auto host_gathered = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), gathered);
  std::vector<detail::FeatureVector> sample{std::size_t(samples)};
  for (index_t i = 0; i < samples; ++i) host_features(host_gathered(i), sample[std::size_t(i)].data());
  auto const initial = detail::kmeans_plus_plus(sample, k, channels, rng);

  Kokkos::View<int*, Kokkos::HostSpace> host_centres("gigaseg::kmeans::centres_host", std::size_t(3 * k));
  for (int c = 0; c < k; ++c)
    for (int i = 0; i < 3; ++i) host_centres(3 * c + i) = 256 * initial[std::size_t(c)][std::size_t(i)];
  Kokkos::View<int*, Memory> centres("gigaseg::kmeans::centres", std::size_t(3 * k));
  Kokkos::View<std::uint64_t*, Memory> accumulators("gigaseg::kmeans::accumulators", std::size_t(detail::accumulator_size(k)));
  auto host_accumulators = Kokkos::create_mirror_view(accumulators);

  KMeansResult result;
  result.channels = channels;
  auto run_pass = [&] {
    Kokkos::deep_copy(space, centres, host_centres);
    detail::kmeans_pass(space, image, labels, features, Kokkos::View<int const*, Memory>(centres), accumulators, k);
    Kokkos::deep_copy(space, host_accumulators, accumulators);
    space.fence();
  };
  for (int iteration = 0; iteration < params.iterations; ++iteration) {
    run_pass();  // assigns with the current centres and sums their members
    double largest_shift = 0;
    for (int c = 0; c < k; ++c) {
      std::uint64_t const count = host_accumulators(4 * c + 3);
      if (count == 0) continue;  // an empty cluster keeps its centre
      double shift = 0;
      for (int i = 0; i < channels; ++i) {
        int const updated = detail::round_div((long long)(256 * host_accumulators(4 * c + i)), (long long)count);
        shift += double(updated - host_centres(3 * c + i)) * (updated - host_centres(3 * c + i));
        host_centres(3 * c + i) = updated;
      }
      largest_shift = std::max(largest_shift, std::sqrt(shift) / 256.0);
    }
    result.iterations = iteration + 1;
    if (largest_shift <= params.tolerance) break;
  }
  run_pass();  // final assignment to the final centres, and its inertia
  result.inertia = double(host_accumulators(4 * k)) / 65536.0;

  // Renumber by ascending luminance of the centre (ties: lower index first).
  auto luminance = [&](int c) {
    double const a = host_centres(3 * c) / 256.0, b = host_centres(3 * c + 1) / 256.0, d = host_centres(3 * c + 2) / 256.0;
    return params.space == FeatureSpace::rgb ? 0.299 * a + 0.587 * b + 0.114 * d : a;  // gray and Lab: channel 0
  };
  std::vector<int> order{std::vector<int>(std::size_t(k))};
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return luminance(a) < luminance(b); });
  Kokkos::View<std::uint8_t*, Kokkos::HostSpace> host_rank("gigaseg::kmeans::rank_host", std::size_t(k));
  for (int r = 0; r < k; ++r) {
    host_rank(order[std::size_t(r)]) = std::uint8_t(r);
    int const c = order[std::size_t(r)];
    result.centres.push_back({host_centres(3 * c) / 256.0, host_centres(3 * c + 1) / 256.0, host_centres(3 * c + 2) / 256.0});
  }
  auto rank = Kokkos::create_mirror_view_and_copy(Memory(), host_rank);
  detail::for_each_row_pixel(space, "gigaseg::kmeans::renumber", labels.height(), labels.width(),
                             KOKKOS_LAMBDA(index_t y, index_t x) { labels(y, x) = rank(labels(y, x)); });
  space.fence();
  return result;
}

}  // namespace gigaseg
