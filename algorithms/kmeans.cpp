// The host side of algorithms/kmeans.hpp: Lab's tables, the parameters' checks, the result, and
// the KMeansModel's steps (k-means++ and the update run on the host's execution space).
#include "gigaseg/algorithms/detail/kmeans_features.hpp"
#include "gigaseg/algorithms/detail/kmeans_impl.hpp"

#include <cmath>
#include <string>

namespace gigaseg::detail {

std::vector<int> const& lab_tables() {
  static std::vector<int> const tables = [] {
    std::vector<int> tables(lab_gamma_entries + lab_cbrt_entries);
    for (int v = 0; v < 256; ++v) {
      double const c = v / 255.0;
      double const linear = c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
      tables[std::size_t(v)] = int(std::lround(linear * 4096));
    }
    for (int i = 0; i < lab_cbrt_entries; ++i) {
      double const t = i / 4096.0;
      double const f = t > 0.008856 ? std::cbrt(t) : 7.787 * t + 16.0 / 116.0;
      tables[std::size_t(lab_gamma_entries + i)] = int(std::lround(f * 4096));
    }
    return tables;
  }();
  return tables;
}

LabMatrix lab_matrix() {
  // sRGB primaries, D65 white (the matrix OpenCV's RGB2Lab uses), rows divided by the white point.
  double const m[9] = {0.412453, 0.357580, 0.180423, 0.212671, 0.715160, 0.072169, 0.019334, 0.119193, 0.950227};
  double const white[3] = {0.950456, 1.0, 1.088754};
  LabMatrix out{};
  for (int i = 0; i < 9; ++i) out.m[i] = int(std::lround(m[i] / white[i / 3] * 4096));
  return out;
}

}  // namespace gigaseg::detail

namespace gigaseg {
namespace detail {

void require_kmeans_params(KMeansParams const& params) {
  GIGASEG_REQUIRE(params.k >= 1 && params.k <= max_clusters, ErrorKind::usage, "KMeansParams::k",
                  "must be between 1 and " + std::to_string(max_clusters));
  // Bounded by what they can mean: Lloyd's iterations settle within tens of steps on images, and
  // restarts past a hundred no longer change the best inertia found.
  GIGASEG_REQUIRE(
      params.iterations >= 1 && params.iterations <= max_kmeans_iterations, ErrorKind::usage,
      "KMeansParams::iterations",
      "must be 1 to " + std::to_string(max_kmeans_iterations) + ", not " + std::to_string(params.iterations));
  GIGASEG_REQUIRE(params.tolerance >= 0 && std::isfinite(params.tolerance), ErrorKind::usage, "KMeansParams::tolerance",
                  "must be a finite number, 0 or more");
  GIGASEG_REQUIRE(params.attempts >= 1 && params.attempts <= max_kmeans_attempts, ErrorKind::usage,
                  "KMeansParams::attempts",
                  "must be 1 to " + std::to_string(max_kmeans_attempts) + ", not " + std::to_string(params.attempts));
}

KMeansResult kmeans_result(KMeansParams const& params, std::uint64_t const* state, int const* centres, int attempt) {
  int const k = params.k;
  KMeansState const layout{k};
  KMeansResult result;
  result.channels = params.space == FeatureSpace::gray ? 1 : 3;
  result.iterations = int(state[layout.iterations()]);
  result.inertia = double(state[layout.inertia()]) / 65536.0;
  result.attempt = attempt;
  result.centres.resize(std::size_t(k));
  for (int c = 0; c < k; ++c)
    result.centres[std::size_t(centres[3 * k + c])] = {centres[3 * c] / 256.0, centres[3 * c + 1] / 256.0,
                                                       centres[3 * c + 2] / 256.0};
  return result;
}

}  // namespace detail

namespace {
using Host = Kokkos::DefaultHostExecutionSpace;
template <class T>
using HostWords = Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
}  // namespace

bool KMeansModel::done() const {
  detail::KMeansState const layout{params.k};
  GIGASEG_REQUIRE(state.size() == std::size_t(layout.size()) && centres.size() == 4 * std::size_t(params.k),
                  ErrorKind::usage, "KMeansModel", "not made by kmeans_model");
  return state[std::size_t(layout.converged())] != 0 ||
         state[std::size_t(layout.iterations())] >= std::uint64_t(params.iterations);
}

KMeansResult KMeansModel::result(std::uint64_t inertia) const {
  GIGASEG_REQUIRE(done(), ErrorKind::usage, "KMeansModel::result", "the model still has update steps to run");
  std::vector<std::uint64_t> final_state = state;
  final_state[std::size_t(detail::KMeansState{params.k}.inertia())] = inertia;
  return detail::kmeans_result(params, final_state.data(), centres.data(), attempt);
}

KMeansModel kmeans_model(KMeansParams const& params, index_t width, index_t height, int attempt) {
  detail::require_kmeans_params(params);
  GIGASEG_REQUIRE(width > 0 && height > 0, ErrorKind::input, "kmeans", "empty image");
  GIGASEG_REQUIRE(attempt >= 0 && attempt < params.attempts, ErrorKind::usage, "kmeans_model",
                  "the attempt must be 0 to KMeansParams::attempts - 1");
  KMeansModel model;
  model.params = params;
  model.attempt = attempt;
  model.seed = detail::kmeans_attempt_seed(params.seed, attempt);
  model.width = width;
  model.height = height;
  std::uint64_t const pixels = std::uint64_t(width) * std::uint64_t(height);
  int const samples = detail::kmeans_sample_count(index_t(pixels), params);
  model.sample_pixels.resize(std::size_t(samples));
  for (int i = 0; i < samples; ++i)
    model.sample_pixels[std::size_t(i)] = index_t(detail::kmeans_random(model.seed, 0, std::uint64_t(i)) % pixels);
  model.sample.resize(std::size_t(samples));
  model.centres.assign(4 * std::size_t(params.k), 0);
  model.state.assign(std::size_t(detail::KMeansState{params.k}.size()), 0);
  return model;
}

void kmeans_initialise(KMeansModel& model) {
  (void)model.done();  // the model's shape checked
  GIGASEG_REQUIRE(model.sample.size() == model.sample_pixels.size() && !model.sample.empty(), ErrorKind::usage,
                  "kmeans_initialise", "the model's sample is not filled");
  int const n = int(model.sample.size());
  detail::FeatureMap const features{model.params.space, detail::lab_tables().data(), detail::lab_matrix()};
  std::vector<int> sample(3 * static_cast<std::size_t>(n)), nearest(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    int f[3];
    features(model.sample[std::size_t(i)], f);
    for (int c = 0; c < 3; ++c) sample[std::size_t(c) * std::size_t(n) + std::size_t(i)] = f[c];
  }
  Host const host;
  detail::kmeans_initialise(host, sample.data(), nearest.data(), n, model.centres.data(), model.state.data(),
                            model.params.k, model.seed);
  host.fence();
}

void kmeans_update(KMeansModel& model, std::vector<std::uint64_t> const& sums) {
  int const k = model.params.k;
  detail::KMeansState const layout{k};
  if (model.done()) return;  // (done() checks the model's shape)
  GIGASEG_REQUIRE(sums.size() == kmeans_sums_size(k), ErrorKind::usage, "kmeans_update",
                  "the sums must be kmeans_sums_size(k) words");
  std::copy(sums.begin(), sums.end(), model.state.begin() + layout.sums());
  Host const host;
  HostWords<int> const centres(model.centres.data(), model.centres.size());
  HostWords<std::uint64_t> const state(model.state.data(), model.state.size());
  detail::kmeans_update(host, centres, state, k, detail::kmeans_limit(model.params.tolerance));
  host.fence();
  if (model.done()) {
    detail::kmeans_rank(host, centres, k, model.params.space == FeatureSpace::rgb);
    host.fence();
  }
}

namespace {
// One pass over a colour histogram on the host: a colour per iteration, its count times its
// features summed into its cluster (update pass), or its count into its class and its count times
// its distance into the inertia (final pass), in each thread's own array.
struct ColourPass {
  using value_type = std::uint64_t[];
  using size_type = std::size_t;
  KMeansModel const* model;
  detail::FeatureMap features;
  Rgb8 const* colours;
  std::uint64_t const* counts;
  bool final_pass;
  size_type value_count;

  void operator()(std::size_t i, value_type sums) const {
    int const k = model->params.k;
    int f[3];
    features(colours[i], f);
    long long distance;
    int const c =
        detail::nearest(f, model->centres.data(), model->state.data() + detail::KMeansState{k}.norms(), k, distance);
    std::uint64_t const n = counts[i];
    if (final_pass) {
      sums[model->centres[std::size_t(3 * k + c)]] += n;
      sums[k] += n * std::uint64_t(distance);
    } else {
      for (int j = 0; j < 3; ++j) sums[4 * c + j] += n * std::uint64_t(f[j]);
      sums[4 * c + 3] += n;
    }
  }
  void init(value_type sums) const {
    for (size_type i = 0; i < value_count; ++i) sums[i] = 0;
  }
  void join(value_type dst, value_type const src) const {
    for (size_type i = 0; i < value_count; ++i) dst[i] += src[i];
  }
#if KOKKOS_VERSION < 40000
  void join(volatile std::uint64_t* dst, volatile std::uint64_t const* src) const {
    for (size_type i = 0; i < value_count; ++i) dst[i] += src[i];
  }
#endif
};

// The pass's words: an update pass's kmeans_sums_size(k), a final pass's k class counts and the inertia.
std::vector<std::uint64_t> colour_pass(KMeansModel const& model, std::vector<Rgb8> const& colours,
                                       std::vector<std::uint64_t> const& counts, bool final_pass) {
  GIGASEG_REQUIRE(colours.size() == counts.size(), ErrorKind::usage, "kmeans_add_sums",
                  "the counts must hold one count a colour");
  int const k = model.params.k;
  std::vector<std::uint64_t> words(final_pass ? std::size_t(k) + 1 : kmeans_sums_size(k), 0);
  detail::FeatureMap const features{model.params.space, detail::lab_tables().data(), detail::lab_matrix()};
  ColourPass const pass{&model, features, colours.data(), counts.data(), final_pass, words.size()};
  HostWords<std::uint64_t> const result(words.data(), words.size());
  Kokkos::parallel_reduce("gigaseg::kmeans::colour_pass", Kokkos::RangePolicy<Host>(Host(), 0, colours.size()), pass,
                          result);
  Host().fence();
  return words;
}
}  // namespace

void kmeans_add_sums(KMeansModel const& model, std::vector<Rgb8> const& colours,
                     std::vector<std::uint64_t> const& counts, std::vector<std::uint64_t>& sums) {
  GIGASEG_REQUIRE(!model.done(), ErrorKind::usage, "kmeans_add_sums", "the model is done: no update step is left");
  GIGASEG_REQUIRE(sums.size() == kmeans_sums_size(model.params.k), ErrorKind::usage, "kmeans_add_sums",
                  "the sums must be kmeans_sums_size(k) words");
  std::vector<std::uint64_t> const part = colour_pass(model, colours, counts, false);
  for (std::size_t i = 0; i < sums.size(); ++i) sums[i] += part[i];
}

std::uint64_t kmeans_assign(KMeansModel const& model, std::vector<Rgb8> const& colours,
                            std::vector<std::uint64_t> const& counts, std::vector<std::uint64_t>& class_pixels) {
  int const k = model.params.k;
  GIGASEG_REQUIRE(model.done(), ErrorKind::usage, "kmeans_assign", "the model still has update steps to run");
  GIGASEG_REQUIRE(class_pixels.size() == std::size_t(k), ErrorKind::usage, "kmeans_assign",
                  "class_pixels must hold k counts");
  std::vector<std::uint64_t> const part = colour_pass(model, colours, counts, true);
  for (int c = 0; c < k; ++c) class_pixels[std::size_t(c)] += part[std::size_t(c)];
  return part[std::size_t(k)];
}

}  // namespace gigaseg
