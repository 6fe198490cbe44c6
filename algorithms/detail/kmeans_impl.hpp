#pragma once
// Implementation of algorithms/kmeans.hpp: the driver, the portable passes and the update step.
//
// Iterations run without a host round trip: the centre update is a one-team kernel on the same
// instance, which also decides convergence and sets a flag in the backend's memory; every later
// pass and update reads the flag first and returns at once. The host reads the state back once,
// after the final pass. (The previous driver copied the sums to the host and the centres back at
// every iteration: two transfers and a fence per step.) The assignment pass dispatches between the
// portable pass below and a backend's tuned one (instantiated by backends/instantiate/kmeans.cpp,
// which also sees the backends' specialisations).
#include "gigaseg/algorithms/detail/dispatch.hpp"
#include "gigaseg/algorithms/detail/kmeans_draws.hpp"
#include "gigaseg/algorithms/detail/kmeans_state.hpp"
#include "gigaseg/algorithms/kmeans.hpp"
#include "gigaseg/core/error.hpp"
#include "gigaseg/core/translation_unit.hpp"
#include "gigaseg/gigaseg_config.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <optional>
#include <type_traits>
#include <vector>

#if defined(KOKKOS_ENABLE_CUDA) && GIGASEG_HAVE_CUDA_KERNELS
#include "gigaseg/core/cuda/stream_scratch.hpp"
#endif

namespace gigaseg {
namespace detail {

// Pixels one thread takes in a row before it moves on: its members are summed locally while the
// label stays the same, so a spatially coherent image (a stain scan) sends about one atomic per
// run instead of five per pixel to the team's scratch sums (atomics serialising on a few counters,
// one level down).
constexpr int kmeans_run_pixels = 8;

// One pass on a GPU-like space: team scratch sums, one global merge per team.
template <class ExecSpace, class Unit = detail::unit_for<ExecSpace>>
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
        Kokkos::parallel_for(Kokkos::TeamThreadRange(member, int(narrow)),
                             [&](int i) { local_centres[i] = centres[i]; });
        member.team_barrier();
        for (index_t y = member.league_rank(); y < height; y += member.league_size()) {
          Rgb8 const* row = image.row(y);
          std::uint8_t* out = final_pass ? labels.row(y) : nullptr;  // an update pass may have no labels
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

// One assignment pass: the backend's tuned pass (backends/openmp/kmeans_openmp.cpp: per-thread
// sums reduced into `sums_on_host`, the state's sums in host memory; backends/cuda/kmeans_cuda.cpp:
// the warp-aggregated kernel) or the portable one. `sums_on_host` is null where the state is not
// host memory.
template <class ExecSpace>
void kmeans_pass(ExecSpace const& space, KMeansPassArgs<typename ExecSpace::memory_space> const& args,
                 std::uint64_t* sums_on_host, Path path) {
  dispatch<KMeansAlgorithm>(
      space, path, [&] { kmeans_pass_portable(space, args); }, args, sums_on_host);
}

// The update step, one team on the instance: new centres from the sums (an empty cluster keeps its
// centre), their norms, the largest squared shift (1/65536 feature units^2) against `limit`, the
// sums zeroed for the next pass. limit < 0 never converges.
template <class ExecSpace, class Centres, class State, class Unit = detail::unit_for<ExecSpace>>
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
                long long const updated =
                    round_div((long long)(256 * state(layout.sums() + 4 * c + i)), (long long)count);
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
template <class ExecSpace, class Centres, class Unit = detail::unit_for<ExecSpace>>
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

// The seeded sample's features (structure of arrays, 3n ints): pixel i of the sample is
// kmeans_random(seed, 0, i) mod the pixel count.
template <class ExecSpace, class Unit = detail::unit_for<ExecSpace>>
void kmeans_sample(ExecSpace const& space, ImageView<Rgb8 const, typename ExecSpace::memory_space> const& image,
                   FeatureMap const& features, int* sample, int n, std::uint64_t seed) {
  index_t const width = image.width();
  std::uint64_t const pixels = std::uint64_t(image.pixel_count());
  Kokkos::parallel_for(
      "gigaseg::kmeans::sample", Kokkos::RangePolicy<ExecSpace>(space, 0, n), KOKKOS_LAMBDA(int i) {
        index_t const pixel = index_t(kmeans_random(seed, 0, std::uint64_t(i)) % pixels);
        int f[3];
        features(image(pixel / width, pixel % width), f);
        for (int c = 0; c < 3; ++c) sample[c * n + i] = f[c];
      });
}

// Greedy k-means++ on the sampled features, one team on the backend (no host round trip): each new
// centre is the best of kmeans_trials(K) D^2-sampled candidates. features: 3n ints (structure of
// arrays), nearest: n ints of workspace. Writes the run's initial state: centres (1/256 units) and
// ranks 0, norms, sums and flags zeroed. Integer sums and a deterministic scan make every backend
// choose the same centres (tests/test_kmeans.cpp has a serial version of the same rules).
template <class ExecSpace, class Unit = detail::unit_for<ExecSpace>>
void kmeans_initialise(ExecSpace const& space, int const* features, int* nearest, int n, int* centres,
                       std::uint64_t* state, int k, std::uint64_t seed) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  using Ints = Kokkos::View<int*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  using Shorts = Kokkos::View<short*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  KMeansState const layout{k};
  int const trials = kmeans_trials(k);
  // The sample's features (16 bits each) and distances live in the team's scratch when they fit
  // (the default sample of 4096 takes 40 KB): every phase reads them all, and from global memory
  // each phase waited on its loads (0.24 ms for the initialisation at K = 8 on the H200; 0.17 ms
  // with them in scratch).
  bool const in_scratch = n <= kmeans_scratch_samples;
  std::size_t const scratch_bytes = Ints::shmem_size(kmeans_max_trials) +
                                    (in_scratch ? Shorts::shmem_size(3 * std::size_t(n)) + Ints::shmem_size(n) : 0);
  auto body = KOKKOS_LAMBDA(Member const& member) {
    Ints scratch(member.team_scratch(0), kmeans_max_trials);
    int* const candidates = scratch.data();
    short* fast_features = nullptr;
    int* nearest_to = nearest;
    if (in_scratch) {
      Shorts features_scratch(member.team_scratch(0), 3 * n);
      Ints nearest_scratch(member.team_scratch(0), n);
      fast_features = features_scratch.data();
      nearest_to = nearest_scratch.data();
      Kokkos::parallel_for(Kokkos::TeamThreadRange(member, 3 * n),
                           [&](int i) { fast_features[i] = short(features[i]); });
      member.team_barrier();
    }
    auto feature = [&](int channel, int i) {
      return in_scratch ? int(fast_features[channel * n + i]) : features[channel * n + i];
    };
    auto distance = [&](int i, int j) {
      int const d0 = feature(0, i) - feature(0, j), d1 = feature(1, i) - feature(1, j),
                d2 = feature(2, i) - feature(2, j);
      return d0 * d0 + d1 * d1 + d2 * d2;
    };
    auto write_centre = [&](int c, int j) {
      std::uint64_t norm = 0;
      for (int i = 0; i < 3; ++i) {
        int const value = 256 * features[i * n + j];
        centres[3 * c + i] = value;
        norm += std::uint64_t((long long)value * value);
      }
      centres[3 * k + c] = 0;
      state[layout.norms() + c] = norm;
    };
    // Each thread of the team owns a contiguous chunk of the sample, so that running sums in
    // sample order are a team scan of the chunks' sums.
    int const chunk = (n + member.team_size() - 1) / member.team_size();
    int const begin = member.team_rank() * chunk < n ? member.team_rank() * chunk : n;
    int const end = begin + chunk < n ? begin + chunk : n;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(member, layout.size() - layout.sums()),
                         [&](int i) { state[layout.sums() + i] = 0; });
    int const first = int(kmeans_random(seed, 1, 0) % std::uint64_t(n));
    Kokkos::parallel_for(Kokkos::TeamThreadRange(member, n), [&](int i) { nearest_to[i] = distance(i, first); });
    Kokkos::single(Kokkos::PerTeam(member), [&]() { write_centre(0, first); });
    member.team_barrier();
    for (int c = 1; c < k; ++c) {
      long long total = 0;
      Kokkos::parallel_reduce(
          Kokkos::TeamThreadRange(member, n), [&](int i, long long& sum) { sum += nearest_to[i]; }, total);
      // A barrier after each team reduction and scan: back-to-back collectives share Kokkos'
      // reduction buffer in shared memory (compute-sanitizer racecheck caught the race).
      member.team_barrier();
      Kokkos::single(Kokkos::PerTeam(member), [&]() {
        for (int t = 0; t < trials; ++t)
          candidates[t] =
              total == 0 ? int(kmeans_random(seed, 2, std::uint64_t(c * trials + t)) % std::uint64_t(n)) : n - 1;
      });
      member.team_barrier();
      if (total != 0) {
        // Sample i is trial t's draw when the target falls in its span of the running sum.
        long long mine = 0;
        for (int i = begin; i < end; ++i) mine += nearest_to[i];
        long long before = member.team_scan(mine);
        member.team_barrier();
        for (int i = begin; i < end; ++i) {
          for (int t = 0; t < trials; ++t) {
            long long const target = kmeans_target(kmeans_random(seed, 2, std::uint64_t(c * trials + t)), total);
            if (before <= target && before + nearest_to[i] > target) candidates[t] = i;
          }
          before += nearest_to[i];
        }
        member.team_barrier();
      }
      long long best_potential = -1;
      int best = 0;
      for (int t = 0; t < trials; ++t) {
        int const candidate = candidates[t];
        long long potential = 0;
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(member, n),
            [&](int i, long long& sum) {
              int const d = distance(i, candidate);
              sum += nearest_to[i] < d ? nearest_to[i] : d;
            },
            potential);
        member.team_barrier();
        if (best_potential < 0 || potential < best_potential) best_potential = potential, best = candidate;
      }
      Kokkos::parallel_for(Kokkos::TeamThreadRange(member, n), [&](int i) {
        int const d = distance(i, best);
        if (d < nearest_to[i]) nearest_to[i] = d;
      });
      Kokkos::single(Kokkos::PerTeam(member), [&]() { write_centre(c, best); });
      member.team_barrier();
    }
  };
  // One team, as wide as the backend allows up to 256 threads: with Kokkos' automatic team size
  // the whole 2048 x 2048 run took 1.5 ms with one update step on the H200, with 256 threads 0.38.
  Policy probe(space, 1, Kokkos::AUTO);
  probe.set_scratch_size(0, Kokkos::PerTeam(scratch_bytes));
  int const team = std::max(1, std::min(256, probe.team_size_max(body, Kokkos::ParallelForTag())));
  Policy policy(space, 1, team);
  policy.set_scratch_size(0, Kokkos::PerTeam(scratch_bytes));
  Kokkos::parallel_for("gigaseg::kmeans::initialise", policy, body);
}

// Error(usage) naming the parameter for what kmeans() refuses (algorithms/kmeans.cpp).
void require_kmeans_params(KMeansParams const& params);
// The pixels of k-means++'s sample for an image of `pixels`.
inline int kmeans_sample_count(index_t pixels, KMeansParams const& params) {
  return int(std::min<index_t>(pixels, std::max(params.init_sample, params.k)));
}
// Convergence when no centre's squared shift (1/65536 units^2) passes this.
inline double kmeans_limit(double tolerance) {
  return tolerance < 0 ? -1.0 : (256.0 * tolerance) * (256.0 * tolerance);
}
// The result of a run from its state and centres (KMeansState's layout, ranks after the centres).
KMeansResult kmeans_result(KMeansParams const& params, std::uint64_t const* state, int const* centres, int attempt);

// Lab's tables in the backend's memory (empty for the other feature spaces, which never read them).
template <class ExecSpace>
Kokkos::View<int*, typename ExecSpace::memory_space> lab_tables_on(ExecSpace const& space, FeatureSpace feature_space) {
  auto const& host_tables = lab_tables();
  Kokkos::View<int*, typename ExecSpace::memory_space> tables(
      "gigaseg::kmeans::lab_tables", feature_space == FeatureSpace::lab ? host_tables.size() : 0);
  if (feature_space == FeatureSpace::lab)
    Kokkos::deep_copy(
        space, tables,
        Kokkos::View<int const*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(host_tables.data(), host_tables.size()));
  return tables;
}

// One pass of a KMeansModel over a part on `space` (kmeans_add_sums, kmeans_assign): the model's
// centres and norms go to the backend, the pass runs as kmeans()'s does, and its accumulated words
// (kmeans_sums_size) come back. Fences `space`.
template <class ExecSpace>
std::vector<std::uint64_t> kmeans_part_pass(ExecSpace const& space,
                                            ImageView<Rgb8 const, typename ExecSpace::memory_space> const& part,
                                            ImageView<std::uint8_t, typename ExecSpace::memory_space> const& labels,
                                            KMeansModel const& model, bool final_pass) {
  using Memory = typename ExecSpace::memory_space;
  int const k = model.params.k;
  KMeansState const layout{k};
  auto const tables = lab_tables_on(space, model.params.space);
  FeatureMap const features{model.params.space, tables.data(), lab_matrix()};
  // The state (its sums zeroed) and the centres, in one allocation of 64-bit words.
  std::size_t const state_words = std::size_t(layout.size()), words = state_words + 2 * std::size_t(k);
  std::vector<std::uint64_t> host(words, 0);
  std::copy(model.state.begin(), model.state.end(), host.begin());
  std::fill(host.begin() + layout.sums(), host.begin() + layout.sums() + layout.accumulated(), 0);
  std::memcpy(host.data() + state_words, model.centres.data(), model.centres.size() * sizeof(int));
  Kokkos::View<std::uint64_t*, Memory> workspace(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "gigaseg::kmeans::part_state"), words);
  Kokkos::View<std::uint64_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> host_view(host.data(), words);
  Kokkos::deep_copy(space, workspace, host_view);
  std::uint64_t* const state = workspace.data();
  KMeansPassArgs<Memory> const args{part,  labels, features,  reinterpret_cast<int const*>(state + state_words),
                                    state, k,      final_pass};
  std::uint64_t* const host_sums =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, Memory>::accessible ? state + layout.sums() : nullptr;
  kmeans_pass(space, args, host_sums, resolved_path<KMeansAlgorithm, ExecSpace>(model.params.path));
  Kokkos::deep_copy(space, host_view, workspace);
  space.fence();
  return std::vector<std::uint64_t>(host.begin() + layout.sums(), host.begin() + layout.sums() + layout.accumulated());
}

}  // namespace detail

template <class ExecSpace>
Path kmeans_path(Path requested) {
  return resolved_path<KMeansAlgorithm, ExecSpace>(requested);
}

template <class ExecSpace>
void kmeans_add_sums(ExecSpace const& space, ImageView<Rgb8 const, typename ExecSpace::memory_space> const& part,
                     KMeansModel const& model, std::vector<std::uint64_t>& sums) {
  GIGASEG_REQUIRE(!model.done(), ErrorKind::usage, "kmeans_add_sums", "the model is done: no update step is left");
  GIGASEG_REQUIRE(sums.size() == kmeans_sums_size(model.params.k), ErrorKind::usage, "kmeans_add_sums",
                  "the sums must be kmeans_sums_size(k) words");
  std::vector<std::uint64_t> const part_sums =
      detail::kmeans_part_pass(space, part, ImageView<std::uint8_t, typename ExecSpace::memory_space>(), model, false);
  for (std::size_t i = 0; i < sums.size(); ++i) sums[i] += part_sums[i];
}

template <class ExecSpace>
std::uint64_t kmeans_assign(ExecSpace const& space, ImageView<Rgb8 const, typename ExecSpace::memory_space> const& part,
                            KMeansModel const& model,
                            ImageView<std::uint8_t, typename ExecSpace::memory_space> const& labels) {
  GIGASEG_REQUIRE(model.done(), ErrorKind::usage, "kmeans_assign", "the model still has update steps to run");
  GIGASEG_REQUIRE(part.width() == labels.width() && part.height() == labels.height(), ErrorKind::input, "kmeans_assign",
                  "labels and part sizes differ");
  return detail::kmeans_part_pass(space, part, labels, model, true)[std::size_t(4 * model.params.k)];
}

template <class ExecSpace>
KMeansResult kmeans(ExecSpace const& space, ImageView<Rgb8 const, typename ExecSpace::memory_space> const& image,
                    ImageView<std::uint8_t, typename ExecSpace::memory_space> const& labels,
                    KMeansParams const& params) {
  using Memory = typename ExecSpace::memory_space;
  detail::require_kmeans_params(params);
  GIGASEG_REQUIRE(image.width() == labels.width() && image.height() == labels.height(), ErrorKind::input, "kmeans",
                  "labels and image sizes differ");
  GIGASEG_REQUIRE(!image.empty(), ErrorKind::input, "kmeans", "empty image");
  Path const path = kmeans_path<ExecSpace>(params.path);
  int const k = params.k;
  index_t const pixels = image.pixel_count();
  detail::KMeansState const layout{k};

  auto const tables = detail::lab_tables_on(space, params.space);
  detail::FeatureMap const features{params.space, tables.data(), detail::lab_matrix()};

  // Everything the run keeps on the backend, in one allocation (in words of 64 bits): the state,
  // the centres and ranks, the sample's features (3 ints a pixel) and k-means++'s distances (one
  // int a pixel). One allocation without initialisation instead of several initialised ones (each
  // of those costs an allocation, a fill kernel and a fence). The sample is drawn, gathered and
  // initialised on the backend: the run's only host round trip is the final read of the state.
  int const samples = detail::kmeans_sample_count(pixels, params);
  std::size_t const state_words = std::size_t(layout.size()), centre_words = std::size_t(2 * k);
  std::size_t const result_words = state_words + centre_words;
  std::size_t const feature_offset = result_words, nearest_offset = feature_offset + (3 * std::size_t(samples) + 1) / 2;
  std::size_t const words = nearest_offset + (std::size_t(samples) + 1) / 2;
  // On CUDA from the library's stream-ordered pool (no cudaMalloc/cudaFree and their
  // synchronisation per call).
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
    owned_workspace =
        decltype(owned_workspace)(Kokkos::view_alloc(Kokkos::WithoutInitializing, "gigaseg::kmeans::workspace"), words);
    workspace = owned_workspace;
  }
  std::uint64_t* const state = workspace.data();
  int* const centres = reinterpret_cast<int*>(workspace.data() + state_words);
  int* const sample = reinterpret_cast<int*>(workspace.data() + feature_offset);
  int* const nearest = reinterpret_cast<int*>(workspace.data() + nearest_offset);

  // Host passes reduce into this array and it is copied over the state's sums (a host space's
  // state is host memory, so this is the same memory and the copy is nothing).
  std::uint64_t* const host_sums =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, Memory>::accessible ? state + layout.sums() : nullptr;
  // Stop once no centre moved by more than the tolerance: squared shift <= (256 tolerance)^2.
  double const limit = detail::kmeans_limit(params.tolerance);
  Kokkos::View<int*, Memory, Kokkos::MemoryUnmanaged> const centres_view(centres, std::size_t(4 * k));
  Kokkos::View<std::uint64_t*, Memory, Kokkos::MemoryUnmanaged> const state_view(state, state_words);
  Kokkos::View<std::uint64_t*, Kokkos::HostSpace> host_result(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "gigaseg::kmeans::result"), result_words);

  // One whole run from a seed: sample, k-means++, the update steps, the final labelling.
  auto attempt = [&](int const a) {
    std::uint64_t const seed = detail::kmeans_attempt_seed(params.seed, a);
    detail::kmeans_sample(space, image, features, sample, samples, seed);
    detail::kmeans_initialise(space, sample, nearest, samples, centres, state, k, seed);
    detail::KMeansPassArgs<Memory> args{image, labels, features, centres, state, k, false};
    for (int iteration = 0; iteration < params.iterations; ++iteration) {
      detail::kmeans_pass(space, args, host_sums, path);  // assigns with the current centres, sums members
      detail::kmeans_update(space, centres_view, state_view, k, limit);
    }
    detail::kmeans_rank(space, centres_view, k, params.space == FeatureSpace::rgb);
    args.final_pass = true;  // labels = rank of the nearest final centre, and the inertia
    detail::kmeans_pass(space, args, host_sums, path);
    Kokkos::deep_copy(space, host_result, Kokkos::subview(workspace, Kokkos::make_pair(std::size_t(0), result_words)));
    space.fence();
    return detail::kmeans_result(params, host_result.data(),
                                 reinterpret_cast<int const*>(host_result.data() + state_words), a);
  };

  // Attempt a runs from seed kmeans_attempt_seed(seed, a); the least inertia wins (ties: the
  // earlier attempt). The labels are those of the last attempt run, so the winner is run again
  // when a later attempt lost (the same seed gives the same labels).
  KMeansResult best;
  int best_attempt = -1;
  for (int a = 0; a < params.attempts; ++a) {
    KMeansResult result = attempt(a);
    if (best_attempt < 0 || result.inertia < best.inertia) best = std::move(result), best_attempt = a;
  }
  if (best_attempt != params.attempts - 1) attempt(best_attempt);
  return best;
}

}  // namespace gigaseg
