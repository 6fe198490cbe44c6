#pragma once
// Implementation of algorithms/kmeans.hpp: the driver, the portable passes and the update step.
//
// Iterations run without a host round trip: the centre update is a one-team kernel on the same
// instance, which also decides convergence and sets a flag in the backend's memory; every later
// pass and update reads the flag first and returns at once. The host reads the state back once,
// after the final pass. (The previous driver copied the sums to the host and the centres back at
// every iteration: two transfers and a fence per step.)
#include "algorithms/detail/kmeans_types.hpp"
#include "algorithms/path.hpp"
#include "core/error.hpp"
#include "gigaseg_config.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <random>
#include <type_traits>
#include <vector>

#if defined(KOKKOS_ENABLE_CUDA) && GIGASEG_HAVE_CUDA_KERNELS
#include "backends/cuda/kmeans_cuda.hpp"
#include "backends/cuda/stream_scratch.hpp"
#endif

namespace gigaseg {
namespace detail {

// The tuned pass: on host spaces a per-thread array reduction without atomics (KMeansHostPass), on
// CUDA the warp-aggregated kernel of backends/cuda/kmeans_cuda.cpp. The portable pass (team scratch
// sums) runs everywhere, so tests cover it on the host backends too.
template <class ExecSpace>
struct TunedKMeans
    : std::integral_constant<bool, Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible> {};
#if defined(KOKKOS_ENABLE_CUDA) && GIGASEG_HAVE_CUDA_KERNELS
template <>
struct TunedKMeans<Kokkos::Cuda> : std::true_type {};
#endif

// Pixels one thread takes in a row before it moves on: its members are summed locally while the
// label stays the same, so a spatially coherent image (a stain scan) sends about one atomic per
// run instead of five per pixel to the team's scratch sums (seed 000 section 6.1's trap, one level
// down).
constexpr int kmeans_run_pixels = 8;

// One pass on a GPU-like space: team scratch sums, one global merge per team.
template <class ExecSpace>
void kmeans_pass_portable(ExecSpace const& space, KMeansPassArgs<typename ExecSpace::memory_space> const& args) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  using Sums = Kokkos::View<unsigned long long*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  using Ints = Kokkos::View<int*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  auto const image = args.image;
  auto const labels = args.labels;
  auto const features = args.features;
  int const* const centres = args.centres;
  std::uint64_t* const state = args.state;
  int const k = args.k;
  bool const final_pass = args.final_pass;
  KMeansState const layout{k};
  index_t const height = image.height(), width = image.width();
  index_t const runs_per_row = (width + kmeans_run_pixels - 1) / kmeans_run_pixels;
  int const league = int(std::max<index_t>(1, std::min<index_t>(height, space.concurrency() / 256)));
  // Scratch: the k norms and the 4k+1 sums (64-bit), then the 3k centres and k ranks.
  std::size_t const wide = std::size_t(k + layout.accumulated()), narrow = std::size_t(4 * k);
  Policy policy(space, league, Kokkos::AUTO);
  policy.set_scratch_size(0, Kokkos::PerTeam(Sums::shmem_size(wide) + Ints::shmem_size(narrow)));
  Kokkos::parallel_for(
      "gigaseg::kmeans::pass[Portable]", policy, KOKKOS_LAMBDA(Member const& member) {
        if (state[layout.converged()] != 0 && !final_pass) return;  // the same for the whole team
        Sums wide_scratch(member.team_scratch(0), wide);
        Ints narrow_scratch(member.team_scratch(0), narrow);
        unsigned long long* const norms = wide_scratch.data();
        unsigned long long* const sums = norms + k;
        int* const local_centres = narrow_scratch.data();
        int const* const rank = local_centres + 3 * k;
        Kokkos::parallel_for(Kokkos::TeamThreadRange(member, layout.accumulated()), [&](int i) { sums[i] = 0; });
        Kokkos::parallel_for(Kokkos::TeamThreadRange(member, k), [&](int i) { norms[i] = state[layout.norms() + i]; });
        Kokkos::parallel_for(Kokkos::TeamThreadRange(member, int(narrow)), [&](int i) { local_centres[i] = centres[i]; });
        member.team_barrier();
        for (index_t y = member.league_rank(); y < height; y += member.league_size()) {
          Rgb8 const* row = image.row(y);
          std::uint8_t* out = labels.row(y);
          Kokkos::parallel_for(Kokkos::TeamThreadRange(member, runs_per_row), [&](index_t run) {
            index_t const x0 = run * kmeans_run_pixels;
            index_t const x1 = x0 + kmeans_run_pixels < width ? x0 + kmeans_run_pixels : width;
            int current = -1;
            unsigned long long run_sums[4] = {0, 0, 0, 0};
            unsigned long long run_distance = 0;
            for (index_t x = x0; x < x1; ++x) {
              int f[3];
              features(row[x], f);
              long long distance;
              int const c = nearest(f, local_centres, norms, k, distance);
              if (final_pass) {
                out[x] = std::uint8_t(rank[c]);
                run_distance += (unsigned long long)distance;
                continue;
              }
              if (c != current) {
                if (current >= 0)
                  for (int i = 0; i < 4; ++i) Kokkos::atomic_add(&sums[4 * current + i], run_sums[i]);
                current = c;
                run_sums[0] = run_sums[1] = run_sums[2] = run_sums[3] = 0;
              }
              run_sums[0] += f[0], run_sums[1] += f[1], run_sums[2] += f[2], run_sums[3] += 1;
            }
            if (current >= 0)
              for (int i = 0; i < 4; ++i) Kokkos::atomic_add(&sums[4 * current + i], run_sums[i]);
            if (final_pass) Kokkos::atomic_add(&sums[4 * k], run_distance);
          });
        }
        member.team_barrier();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(member, layout.accumulated()), [&](int i) {
          if (sums[i] != 0) Kokkos::atomic_add(&state[layout.sums() + i], std::uint64_t(sums[i]));
        });
      });
}

// One pass on a host space: each thread accumulates privately (a Kokkos array reduction), no
// atomics; Kokkos sums the threads' arrays at the end and writes them over the state's sums.
template <class MemorySpace>
struct KMeansHostPass {
  using value_type = std::uint64_t[];
  using size_type = std::size_t;
  KMeansPassArgs<MemorySpace> args;
  size_type value_count;

  void operator()(index_t y, value_type sums) const {
    KMeansState const layout{args.k};
    if (args.state[layout.converged()] != 0 && !args.final_pass) return;
    Rgb8 const* row = args.image.row(y);
    std::uint8_t* out = args.labels.row(y);
    int const* rank = args.centres + 3 * args.k;
    std::uint64_t const* norms = args.state + layout.norms();
    for (index_t x = 0; x < args.image.width(); ++x) {
      int f[3];
      args.features(row[x], f);
      long long distance;
      int const c = nearest(f, args.centres, norms, args.k, distance);
      if (args.final_pass) {
        out[x] = std::uint8_t(rank[c]);
        sums[4 * args.k] += std::uint64_t(distance);
      } else {
        for (int i = 0; i < 3; ++i) sums[4 * c + i] += std::uint64_t(f[i]);
        sums[4 * c + 3] += 1;
      }
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
void kmeans_pass(ExecSpace const& space, KMeansPassArgs<typename ExecSpace::memory_space> const& args,
                 std::uint64_t* sums_on_host, Path path) {
  using Memory = typename ExecSpace::memory_space;
  if (path == Path::tuned) {
    if constexpr (Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible) {
      KMeansState const layout{args.k};
      Kokkos::View<std::uint64_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> sums(sums_on_host,
                                                                                   std::size_t(layout.accumulated()));
      KMeansHostPass<Memory> pass{args, sums.extent(0)};
      Kokkos::parallel_reduce("gigaseg::kmeans::pass[Host]",
                              Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_t>>(space, 0, args.image.height()),
                              pass, sums);
      return;
    }
#if defined(KOKKOS_ENABLE_CUDA) && GIGASEG_HAVE_CUDA_KERNELS
    if constexpr (std::is_same<ExecSpace, Kokkos::Cuda>::value) {
      tuned::kmeans_pass(space, args);
      return;
    }
#endif
  }
  (void)sums_on_host;
  kmeans_pass_portable(space, args);
}

// The update step, one team on the instance: new centres from the sums (an empty cluster keeps its
// centre), their norms, the largest squared shift (1/65536 feature units^2) against `limit`, the
// sums zeroed for the next pass. limit < 0 never converges.
template <class ExecSpace, class Centres, class State>
void kmeans_update(ExecSpace const& space, Centres const& centres, State const& state, int k, double limit) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  KMeansState const layout{k};
  Kokkos::parallel_for(
      "gigaseg::kmeans::update", Policy(space, 1, Kokkos::AUTO),
      KOKKOS_LAMBDA(typename Policy::member_type const& member) {
        if (state(layout.converged()) != 0) return;
        std::uint64_t largest = 0;
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(member, k),
            [&](int c, std::uint64_t& largest_so_far) {
              std::uint64_t const count = state(layout.sums() + 4 * c + 3);
              if (count == 0) return;
              std::uint64_t shift = 0, norm = 0;
              for (int i = 0; i < 3; ++i) {
                long long const updated = round_div((long long)(256 * state(layout.sums() + 4 * c + i)), (long long)count);
                long long const change = updated - centres(3 * c + i);
                shift += std::uint64_t(change * change);
                norm += std::uint64_t(updated * updated);
                centres(3 * c + i) = int(updated);
              }
              state(layout.norms() + c) = norm;
              if (shift > largest_so_far) largest_so_far = shift;
            },
            Kokkos::Max<std::uint64_t>(largest));
        member.team_barrier();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(member, layout.accumulated()),
                             [&](int i) { state(layout.sums() + i) = 0; });
        Kokkos::single(Kokkos::PerTeam(member), [&]() {
          state(layout.iterations()) += 1;
          if (double(largest) <= limit) state(layout.converged()) = 1;
        });
      });
}

// rank(c) = position of cluster c in ascending luminance of its centre (ties: lower index first).
// Luminance in exact integers: 299 R + 587 G + 114 B for RGB centres, channel 0 (L*, gray) else.
template <class ExecSpace, class Centres>
void kmeans_rank(ExecSpace const& space, Centres const& centres, int k, bool rgb) {
  Kokkos::parallel_for(
      "gigaseg::kmeans::rank", Kokkos::RangePolicy<ExecSpace>(space, 0, k), KOKKOS_LAMBDA(int c) {
        auto luminance = [&](int i) {
          return rgb ? 299LL * centres(3 * i) + 587LL * centres(3 * i + 1) + 114LL * centres(3 * i + 2)
                     : (long long)centres(3 * i);
        };
        long long const mine = luminance(c);
        int position = 0;
        for (int other = 0; other < k; ++other) {
          long long const theirs = luminance(other);
          position += theirs < mine || (theirs == mine && other < c);
        }
        centres(3 * k + c) = position;
      });
}

// Greedy k-means++ on the sampled features (host, so identical for every backend): each new centre
// is the best of 2 + ln K D^2-sampled candidates (scikit-learn's rule). Structure of arrays and
// 32-bit distances (at most 3 * 255^2) so the inner loops vectorise.
inline std::vector<std::array<int, 3>> kmeans_plus_plus(std::vector<int> const (&sample)[3], int k, std::mt19937_64& rng) {
  std::size_t const n = sample[0].size();
  auto distance_to = [&](std::size_t j, std::vector<int>& out) {
    int const a = sample[0][j], b = sample[1][j], c = sample[2][j];
    for (std::size_t i = 0; i < n; ++i) {
      int const d0 = sample[0][i] - a, d1 = sample[1][i] - b, d2 = sample[2][i] - c;
      out[i] = d0 * d0 + d1 * d1 + d2 * d2;
    }
  };
  std::vector<std::size_t> chosen{std::size_t(rng() % n)};
  std::vector<int> nearest_d(n), candidate_d(n);
  distance_to(chosen[0], nearest_d);
  int const trials = 2 + int(std::log(double(k)));
  while (int(chosen.size()) < k) {
    long long total = 0;
    for (std::size_t i = 0; i < n; ++i) total += nearest_d[i];
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
      distance_to(candidate, candidate_d);
      long long potential = 0;
      for (std::size_t i = 0; i < n; ++i) potential += std::min(nearest_d[i], candidate_d[i]);
      if (best_potential < 0 || potential < best_potential) best_potential = potential, best = candidate;
    }
    chosen.push_back(best);
    distance_to(best, candidate_d);
    for (std::size_t i = 0; i < n; ++i) nearest_d[i] = std::min(nearest_d[i], candidate_d[i]);
  }
  std::vector<std::array<int, 3>> centres;
  for (std::size_t j : chosen) centres.push_back({sample[0][j], sample[1][j], sample[2][j]});
  return centres;
}

}  // namespace detail

template <class ExecSpace>
Path kmeans_path(Path requested) {
  return resolve_path(requested, detail::TunedKMeans<ExecSpace>::value, "kmeans");
}

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
  Path const path = kmeans_path<ExecSpace>(params.path);
  int const k = params.k;
  index_t const pixels = image.pixel_count();
  detail::KMeansState const layout{k};

  // Lab tables in the backend's memory (gray and RGB features never read them).
  auto const& host_tables = detail::lab_tables();
  Kokkos::View<int*, Memory> tables("gigaseg::kmeans::lab_tables",
                                    params.space == FeatureSpace::lab ? host_tables.size() : 0);
  if (params.space == FeatureSpace::lab)
    Kokkos::deep_copy(space, tables, Kokkos::View<int const*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                                         host_tables.data(), host_tables.size()));
  detail::FeatureMap const features{params.space, tables.data(), detail::lab_matrix()};
  detail::FeatureMap const host_features{params.space, host_tables.data(), detail::lab_matrix()};

  // Everything the run keeps on the backend, in one allocation (in words of 64 bits): the state,
  // the centres and ranks, the sample's pixel indices, the gathered sample. One allocation without
  // initialisation instead of five initialised ones (each of those costs an allocation, a fill
  // kernel and a fence: a quarter of the time of a whole 2048 x 2048 run on the H200).
  index_t const samples = std::min<index_t>(pixels, std::max(params.init_sample, k));
  std::size_t const state_words = std::size_t(layout.size()), centre_words = std::size_t(2 * k);
  std::size_t const index_offset = state_words + centre_words, gathered_offset = index_offset + std::size_t(samples);
  std::size_t const words = gathered_offset + (3 * std::size_t(samples) + 7) / 8;
  // On CUDA from the stream-ordered pool (no cudaMalloc/cudaFree and their synchronisation per call).
  Kokkos::View<std::uint64_t*, Memory, Kokkos::MemoryUnmanaged> workspace;
  Kokkos::View<std::uint64_t*, Memory> owned_workspace;
#if defined(KOKKOS_ENABLE_CUDA) && GIGASEG_HAVE_CUDA_KERNELS
  std::optional<cuda::StreamScratch> stream_workspace;
  if constexpr (std::is_same<ExecSpace, Kokkos::Cuda>::value) {
    stream_workspace.emplace(space, words * sizeof(std::uint64_t));
    workspace = decltype(workspace)(stream_workspace->as<std::uint64_t>(), words);
  } else
#endif
  {
    owned_workspace = decltype(owned_workspace)(Kokkos::view_alloc(Kokkos::WithoutInitializing, "gigaseg::kmeans::workspace"), words);
    workspace = owned_workspace;
  }
  auto host_workspace = Kokkos::create_mirror_view(workspace);
  auto region = [](auto const& view, std::size_t begin, std::size_t end) {
    return Kokkos::subview(view, Kokkos::make_pair(begin, end));
  };
  std::uint64_t* const state = workspace.data();
  int* const centres = reinterpret_cast<int*>(workspace.data() + state_words);
  index_t* const indices = reinterpret_cast<index_t*>(workspace.data() + index_offset);
  Rgb8* const gathered = reinterpret_cast<Rgb8*>(workspace.data() + gathered_offset);
  std::uint64_t* const host_state = host_workspace.data();
  int* const host_centres = reinterpret_cast<int*>(host_workspace.data() + state_words);

  // Seeded sample of pixels, gathered on the backend.
  std::mt19937_64 rng(params.seed);
  for (index_t i = 0; i < samples; ++i)
    reinterpret_cast<index_t*>(host_workspace.data() + index_offset)[i] = index_t(rng() % std::uint64_t(pixels));
  Kokkos::deep_copy(space, region(workspace, index_offset, gathered_offset), region(host_workspace, index_offset, gathered_offset));
  index_t const width = image.width();
  Kokkos::parallel_for(
      "gigaseg::kmeans::gather", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_t>>(space, 0, samples),
      KOKKOS_LAMBDA(index_t i) { gathered[i] = image(indices[i] / width, indices[i] % width); });
  Kokkos::deep_copy(space, region(host_workspace, gathered_offset, words), region(workspace, gathered_offset, words));
  space.fence();
  Rgb8 const* host_gathered = reinterpret_cast<Rgb8 const*>(host_workspace.data() + gathered_offset);
  std::vector<int> sample[3];
  for (auto& channel : sample) channel.resize(std::size_t(samples));
  for (index_t i = 0; i < samples; ++i) {
    int f[3];
    host_features(host_gathered[i], f);
    for (int c = 0; c < 3; ++c) sample[c][std::size_t(i)] = f[c];
  }
  auto const initial = detail::kmeans_plus_plus(sample, k, rng);

  // The run's state: centres and ranks, norms, sums, flags (algorithms/detail/kmeans_types.hpp).
  for (int c = 0; c < k; ++c) {
    std::uint64_t norm = 0;
    for (int i = 0; i < 3; ++i) {
      int const value = 256 * initial[std::size_t(c)][std::size_t(i)];
      host_centres[3 * c + i] = value;
      norm += std::uint64_t((long long)value * value);
    }
    host_centres[3 * k + c] = 0;
    host_state[layout.norms() + c] = norm;
  }
  for (int i = layout.sums(); i < layout.size(); ++i) host_state[i] = 0;
  Kokkos::deep_copy(space, region(workspace, 0, index_offset), region(host_workspace, 0, index_offset));

  // Host passes reduce into this array and it is copied over the state's sums (a host space's
  // state is host memory, so this is the same memory and the copy is nothing).
  std::uint64_t* const host_sums = Kokkos::SpaceAccessibility<Kokkos::HostSpace, Memory>::accessible
                                       ? state + layout.sums()
                                       : nullptr;
  // Stop once no centre moved by more than the tolerance: squared shift <= (256 tolerance)^2.
  double const limit = params.tolerance < 0 ? -1.0 : (256.0 * params.tolerance) * (256.0 * params.tolerance);
  Kokkos::View<int*, Memory, Kokkos::MemoryUnmanaged> const centres_view(centres, std::size_t(4 * k));
  Kokkos::View<std::uint64_t*, Memory, Kokkos::MemoryUnmanaged> const state_view(state, state_words);
  detail::KMeansPassArgs<Memory> args{image, labels, features, centres, state, k, false};
  for (int iteration = 0; iteration < params.iterations; ++iteration) {
    detail::kmeans_pass(space, args, host_sums, path);  // assigns with the current centres, sums members
    detail::kmeans_update(space, centres_view, state_view, k, limit);
  }
  detail::kmeans_rank(space, centres_view, k, params.space == FeatureSpace::rgb);
  args.final_pass = true;  // labels = rank of the nearest final centre, and the inertia
  detail::kmeans_pass(space, args, host_sums, path);
  Kokkos::deep_copy(space, region(host_workspace, 0, index_offset), region(workspace, 0, index_offset));
  space.fence();

  KMeansResult result;
  result.channels = features.channels();
  result.iterations = int(host_state[layout.iterations()]);
  result.inertia = double(host_state[layout.inertia()]) / 65536.0;
  result.centres.resize(std::size_t(k));
  for (int c = 0; c < k; ++c)
    result.centres[std::size_t(host_centres[3 * k + c])] = {host_centres[3 * c] / 256.0, host_centres[3 * c + 1] / 256.0,
                                                            host_centres[3 * c + 2] / 256.0};
  return result;
}

}  // namespace gigaseg
