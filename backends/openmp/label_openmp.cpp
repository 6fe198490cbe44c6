// Host connected-component labelling: strip-parallel and run-based.
//
// A GPU's union-find over pixels pays a random access per pixel; a CPU core does better walking
// rows and working on runs (maximal horizontal stretches of connected pixels), of which a real
// mask has a few per row. So (in the spirit of the run-based two-scan algorithms, He et al.
// 2008, and strip-parallel CCL, e.g. Gupta et al. 2014):
//  1. each thread scans a strip of rows, extracts the runs of each row and joins each run with the
//     overlapping runs of the row above (adjacency with a one-pixel tolerance for 8-connectivity),
//     union-find over the strip's runs, root = smallest run index; then flattens its strip so
//     every run points at its strip-local root;
//  2. the seams between strips are joined (one row pair each, sequentially: O(width) a seam);
//  3. the strip-local roots are visited in run order (sequential, one step each: a run's parent
//     always precedes it, so one pass resolves every chain) and the global roots numbered;
//  4. each thread writes its strip's labels, run by run.
// Runs are numbered in row-major order of their first pixel and every union keeps the smaller
// root, so a component's root is the run holding its first pixel and numbering roots in run order
// is the canonical numbering.
#include "gigaseg/backends/openmp/label_openmp.hpp"

#include "gigaseg/algorithms/detail/label_portable.hpp"
#include "gigaseg/core/loop_errors.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace gigaseg::tuned {
namespace {

template <class T, class Index>
struct Strip {
  index_t y0 = 0, y1 = 0;
  Index first_run = 0;                    // global index of the strip's first run
  std::vector<std::uint32_t> begin, end;  // runs: columns [begin, end)
  std::vector<T> value;                   // equal-value mode: each run's value
  std::vector<std::size_t> row_start;     // first run of each row (local), then the run count
  std::vector<Index> parents;             // local, then strip-local roots as global indices
  std::vector<Index> local_roots;         // global indices, ascending
};

template <class Index>
Index find(std::vector<Index>& parents, Index i) {
  while (parents[std::size_t(i)] != i) {
    Index const grandparent = parents[std::size_t(parents[std::size_t(i)])];
    parents[std::size_t(i)] = grandparent;  // path halving
    i = grandparent;
  }
  return i;
}

template <class Index>
void unite(std::vector<Index>& parents, Index a, Index b) {
  a = find(parents, a);
  b = find(parents, b);
  if (a < b)
    parents[std::size_t(b)] = a;
  else if (b < a)
    parents[std::size_t(a)] = b;
}

// Runs of one row: maximal stretches of nonzero pixels (of one value in equal-value mode).
template <class T, class Index>
void extract_runs(T const* row, index_t width, bool equal_value, Strip<T, Index>& strip) {
  index_t x = 0;
  while (x < width) {
    if constexpr (sizeof(T) == 1) {  // skip background eight bytes at a time
      while (x + 8 <= width) {
        std::uint64_t word;
        std::memcpy(&word, row + x, 8);
        if (word != 0) break;
        x += 8;
      }
    }
    while (x < width && row[x] == 0) ++x;
    if (x == width) break;
    index_t const begin = x;
    T const v = row[x];
    if (equal_value) {
      while (x < width && row[x] == v) ++x;
    } else {
      while (x < width && row[x] != 0) ++x;
    }
    strip.begin.push_back(std::uint32_t(begin));
    strip.end.push_back(std::uint32_t(x));
    if (equal_value) strip.value.push_back(v);
  }
}

// Joins the runs [current, current_end) of a row with the touching runs [above, above_end) of the
// row before it; `join(a, b)` receives the two run indices (in whatever index space the caller
// keeps; `offset_*` translate). Both lists are sorted by column.
template <class T, class Index, class Join>
void join_rows(Strip<T, Index> const& upper, std::size_t above, std::size_t above_end, Strip<T, Index> const& lower,
               std::size_t current, std::size_t current_end, int connectivity, bool equal_value, Join&& join) {
  std::uint32_t const tolerance = connectivity == 8 ? 1 : 0;
  std::size_t first = above;
  for (std::size_t c = current; c < current_end; ++c) {
    std::uint32_t const b = lower.begin[c], e = lower.end[c];
    while (first < above_end && upper.end[first] + tolerance <= b) ++first;  // wholly left of c
    for (std::size_t a = first; a < above_end && upper.begin[a] < e + tolerance; ++a)
      if (!equal_value || upper.value[a] == lower.value[c]) join(a, c);
  }
}

template <class T, class Index>
index_t label_runs(Kokkos::OpenMP const& space, ImageView<T const, Kokkos::HostSpace> const& image,
                   ImageView<Label, Kokkos::HostSpace> const& labels, LabelParams const& params) {
  index_t const height = image.height(), width = image.width();
  int const strips_count = int(std::max<index_t>(1, std::min<index_t>(space.concurrency(), height)));
  std::vector<Strip<T, Index>> strips(static_cast<std::size_t>(strips_count));
  bool const equal_value = params.equal_value;
  int const connectivity = params.connectivity;

  // 1. Runs and strip-local union-find. The strips' lists grow as they go: an allocation that fails
  // is rethrown after the loop.
  detail::LoopErrors errors;
  Kokkos::parallel_for(
      "gigaseg::label::strips[OpenMP]", Kokkos::RangePolicy<Kokkos::OpenMP>(space, 0, strips_count), [&](int s) {
        errors.guard([&] {
          Strip<T, Index>& strip = strips[std::size_t(s)];
          strip.y0 = height * s / strips_count;
          strip.y1 = height * (s + 1) / strips_count;
          strip.row_start.reserve(std::size_t(strip.y1 - strip.y0 + 1));
          for (index_t y = strip.y0; y < strip.y1; ++y) {
            std::size_t const start = strip.begin.size();
            strip.row_start.push_back(start);
            extract_runs(image.row(y), width, equal_value, strip);
            for (std::size_t r = start; r < strip.begin.size(); ++r) strip.parents.push_back(Index(r));
            if (y > strip.y0) {
              std::size_t const above = strip.row_start[strip.row_start.size() - 2];
              join_rows(strip, above, start, strip, start, strip.begin.size(), connectivity, equal_value,
                        [&](std::size_t a, std::size_t c) { unite(strip.parents, Index(a), Index(c)); });
            }
          }
          strip.row_start.push_back(strip.begin.size());
          // Flatten: a run's parent precedes it, so one ascending pass points every run at its root.
          for (std::size_t r = 0; r < strip.parents.size(); ++r)
            strip.parents[r] = strip.parents[std::size_t(strip.parents[r])];
        });
      });
  space.fence();
  errors.rethrow();

  // Global run numbering: strip offsets.
  Index total_runs = 0;
  for (auto& strip : strips) {
    strip.first_run = total_runs;
    total_runs += Index(strip.begin.size());
  }
  std::vector<Index> parents(static_cast<std::size_t>(total_runs));
  Kokkos::parallel_for("gigaseg::label::globalise[OpenMP]", Kokkos::RangePolicy<Kokkos::OpenMP>(space, 0, strips_count),
                       [&](int s) {
                         errors.guard([&] {
                           Strip<T, Index>& strip = strips[std::size_t(s)];
                           for (std::size_t r = 0; r < strip.parents.size(); ++r) {
                             Index const global = strip.first_run + strip.parents[r];
                             parents[std::size_t(strip.first_run + Index(r))] = global;
                             if (strip.parents[r] == Index(r)) strip.local_roots.push_back(global);
                           }
                         });
                       });
  space.fence();
  errors.rethrow();

  // 2. Seams, sequentially.
  for (int s = 1; s < strips_count; ++s) {
    Strip<T, Index> const& upper = strips[std::size_t(s - 1)];
    Strip<T, Index> const& lower = strips[std::size_t(s)];
    std::size_t const upper_rows = upper.row_start.size() - 1;
    join_rows(upper, upper.row_start[upper_rows - 1], upper.row_start[upper_rows], lower, lower.row_start[0],
              lower.row_start[1], connectivity, equal_value, [&](std::size_t a, std::size_t c) {
                unite(parents, upper.first_run + Index(a), lower.first_run + Index(c));
              });
  }

  // 3. Resolve the strip-local roots in run order and number the global roots.
  std::vector<Label> numbers(static_cast<std::size_t>(total_runs));
  index_t components = 0;
  for (auto const& strip : strips)
    for (Index root : strip.local_roots) {
      Index const parent = parents[std::size_t(root)];
      if (parent == root) {
        numbers[std::size_t(root)] = Label(++components);
        detail::check_label_count(components);
      } else {
        Index const final_root = parents[std::size_t(parent)];  // already resolved: it precedes root
        parents[std::size_t(root)] = final_root;
        numbers[std::size_t(root)] = numbers[std::size_t(final_root)];
      }
    }

  // 4. Labels, run by run.
  Kokkos::parallel_for("gigaseg::label::write[OpenMP]", Kokkos::RangePolicy<Kokkos::OpenMP>(space, 0, strips_count),
                       [&](int s) {
                         Strip<T, Index> const& strip = strips[std::size_t(s)];
                         for (index_t y = strip.y0; y < strip.y1; ++y) {
                           Label* out = labels.row(y);
                           std::size_t const row = std::size_t(y - strip.y0);
                           std::uint32_t x = 0;
                           for (std::size_t r = strip.row_start[row]; r < strip.row_start[row + 1]; ++r) {
                             std::fill(out + x, out + strip.begin[r], Label(0));
                             Index const local_root = strip.first_run + strip.parents[r];
                             std::fill(out + strip.begin[r], out + strip.end[r], numbers[std::size_t(local_root)]);
                             x = strip.end[r];
                           }
                           std::fill(out + x, out + width, Label(0));
                         }
                       });
  return components;
}

template <class T>
index_t label_any(Kokkos::OpenMP const& space, ImageView<T const, Kokkos::HostSpace> const& image,
                  ImageView<Label, Kokkos::HostSpace> const& labels, LabelParams const& params, bool wide) {
  return wide ? label_runs<T, std::uint64_t>(space, image, labels, params)
              : label_runs<T, std::uint32_t>(space, image, labels, params);
}

}  // namespace

bool label(Kokkos::OpenMP const& space, ImageView<std::uint8_t const, Kokkos::HostSpace> const& image,
           ImageView<Label, Kokkos::HostSpace> const& labels, LabelParams const& params, bool wide,
           index_t& components) {
  components = label_any(space, image, labels, params, wide);
  return true;
}
bool label(Kokkos::OpenMP const& space, ImageView<std::uint16_t const, Kokkos::HostSpace> const& image,
           ImageView<Label, Kokkos::HostSpace> const& labels, LabelParams const& params, bool wide,
           index_t& components) {
  components = label_any(space, image, labels, params, wide);
  return true;
}
bool label(Kokkos::OpenMP const& space, ImageView<std::uint32_t const, Kokkos::HostSpace> const& image,
           ImageView<Label, Kokkos::HostSpace> const& labels, LabelParams const& params, bool wide,
           index_t& components) {
  components = label_any(space, image, labels, params, wide);
  return true;
}

}  // namespace gigaseg::tuned
