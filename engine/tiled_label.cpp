// Connected components, their statistics and the nuclei pipeline under tiling (engine/tiled.hpp).
#include "gigaseg/algorithms/convert.hpp"
#include "gigaseg/algorithms/histogram.hpp"
#include "gigaseg/algorithms/label.hpp"
#include "gigaseg/algorithms/otsu.hpp"
#include "gigaseg/algorithms/pipelines/detail/stages.hpp"
#include "gigaseg/algorithms/region_stats.hpp"
#include "gigaseg/algorithms/threshold.hpp"
#include "gigaseg/core/error.hpp"
#include "gigaseg/core/io/tile_writer.hpp"
#include "gigaseg/core/scratch.hpp"
#include "gigaseg/engine/on_backend.hpp"
#include "gigaseg/engine/tile_lanes.hpp"
#include "gigaseg/engine/tile_pipeline.hpp"
#include "gigaseg/engine/tile_reader.hpp"
#include "gigaseg/engine/tiled.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <type_traits>
#include <variant>

namespace gigaseg {
namespace {

// The tiles of a width x height image: column c, row r covers core(c, r).
struct Grid {
  index_t width = 0, height = 0, tile_width = 0, tile_height = 0, across = 0, down = 0;
  Grid(index_t w, index_t h, index_t tw, index_t th)
      : width(w), height(h), tile_width(tw), tile_height(th), across((w + tw - 1) / tw), down((h + th - 1) / th) {}
  Region core(index_t c, index_t r) const {
    index_t const x = c * tile_width, y = r * tile_height;
    return Region{x, y, std::min(tile_width, width - x), std::min(tile_height, height - y)};
  }
};

// The values of a border line of `image` (a row or a column: the roi at x, y, w x h) on the host.
template <class Space, class T>
std::vector<std::uint32_t> line_of(Space const& space, ImageView<T, typename Space::memory_space> const& image,
                                   index_t x, index_t y, index_t w, index_t h) {
  HostImage<std::remove_const_t<T>> const host =
      clone<Kokkos::HostSpace>(space, image.roi(x, y, w, h), "gigaseg::tiled::edge");
  std::vector<std::uint32_t> line;
  line.reserve(std::size_t(w * h));
  for (index_t j = 0; j < h; ++j)
    for (index_t i = 0; i < w; ++i) line.push_back(std::uint32_t(host(j, i)));
  return line;
}

// What the first pass keeps of a tile: its component count and the labels and values along its
// edges (top and bottom rows, left and right columns).
struct Edges {
  index_t components = 0;
  std::vector<std::uint32_t> top, bottom, left, right;
  std::vector<std::uint32_t> top_value, bottom_value, left_value, right_value;
};

// On a group of ranks, after the first pass: every tile's component count (in counts[t + 1]) and
// edges reach every rank, with the first row of each tile-local component on an edge (`edge_rows`:
// (global index, first row), filled from this rank's `partials`, whose entries are its tiles'
// components in tile order). Each rank's tile-local sums stay with it (distributed_join).
void share_edges(ProcessGroup const& group, std::vector<std::size_t> const& mine, std::vector<Edges>& edges,
                 std::vector<std::size_t>& counts, std::vector<RegionTotals> const& partials,
                 std::map<std::size_t, std::uint64_t>& edge_rows) {
  std::vector<unsigned char> bytes;
  std::size_t first = 0;  // this tile's first entry in `partials`
  for (std::size_t t : mine) {
    Edges const& e = edges[t];
    std::uint64_t const n = counts[t + 1];
    detail::append_bytes(bytes, &n, 1);
    for (auto const* line :
         {&e.top, &e.bottom, &e.left, &e.right, &e.top_value, &e.bottom_value, &e.left_value, &e.right_value})
      detail::append_bytes(bytes, *line);
    std::vector<std::uint32_t> labels;
    for (auto const* line : {&e.top, &e.bottom, &e.left, &e.right})
      for (std::uint32_t l : *line)
        if (l != 0) labels.push_back(l);
    std::sort(labels.begin(), labels.end());
    labels.erase(std::unique(labels.begin(), labels.end()), labels.end());
    std::vector<std::uint64_t> rows;
    for (std::uint32_t l : labels) rows.push_back(partials[first + l - 1].y0);
    detail::append_bytes(bytes, labels);
    detail::append_bytes(bytes, rows);
    first += std::size_t(n);
  }
  std::vector<std::vector<unsigned char>> const all = group.all_gather(bytes);
  std::vector<std::vector<std::uint32_t>> labels(edges.size());
  std::vector<std::vector<std::uint64_t>> rows(edges.size());
  for (int r = 0; r < group.size(); ++r) {
    detail::ByteReader in(all[std::size_t(r)]);
    for (std::size_t t : detail::owned_tiles(edges.size(), r, group.size())) {
      Edges& e = edges[t];
      counts[t + 1] = std::size_t(in.value<std::uint64_t>());
      e.components = index_t(counts[t + 1]);
      for (auto* line :
           {&e.top, &e.bottom, &e.left, &e.right, &e.top_value, &e.bottom_value, &e.left_value, &e.right_value})
        *line = in.values<std::uint32_t>();
      labels[t] = in.values<std::uint32_t>();
      rows[t] = in.values<std::uint64_t>();
    }
  }
  std::size_t offset = 0;
  for (std::size_t t = 0; t < edges.size(); ++t) {
    for (std::size_t k = 0; k < labels[t].size(); ++k) edge_rows[offset + labels[t][k] - 1] = rows[t][k];
    offset += counts[t + 1];
  }
}

// Union-find over every tile-local component (tile offset + local label - 1). Components are
// ordered by their first pixel in raster order, which is the order of (first row, index): two
// tile-local components whose first pixels share an image row lie in one row of tiles, where the
// index grows with the tile's column and, inside a tile, with the canonical local label. The root of
// a set is its least member, so the root holds the set's first pixel.
class Components {
 public:
  explicit Components(std::vector<RegionTotals> totals) : totals_(std::move(totals)), parent_(totals_.size()) {
    std::iota(parent_.begin(), parent_.end(), std::size_t(0));
  }
  bool before(std::size_t a, std::size_t b) const {
    return totals_[a].y0 != totals_[b].y0 ? totals_[a].y0 < totals_[b].y0 : a < b;
  }
  std::size_t find(std::size_t i) {
    while (parent_[i] != i) {
      parent_[i] = parent_[parent_[i]];
      i = parent_[i];
    }
    return i;
  }
  void join(std::size_t a, std::size_t b) {
    a = find(a);
    b = find(b);
    if (a == b) return;
    if (before(b, a)) std::swap(a, b);
    parent_[b] = a;
  }
  std::vector<RegionTotals>& totals() { return totals_; }

 private:
  std::vector<RegionTotals> totals_;
  std::vector<std::size_t> parent_;
};

// The join of label_tiled on a group of ranks, each holding the sums of its own tiles' components
// (`partials`, in tile order; global index offset[t] + label - 1). Only the components on tile
// edges are joined (a union-find over them, keyed by first row and index as Components is): each
// rank scans the seams of its own tiles, and every rank applies every rank's joins, so the sets
// are alike on every rank; a rank numbers the sets whose least member is among its tiles: a component's
// number is the count of sets whose first pixel comes before, which per-(first row, tile column)
// counts summed over the ranks give (the sets with one first row lie in one row of tiles, ordered
// by tile column and, inside a tile, by label). The numbers of the edges' sets then go to every
// rank. `number` gets this rank's components' numbers (indexed by global index); with `stats`, rank
// 0 receives every rank's sums by number and makes `regions` (the other ranks' stay empty), or with
// `spread` each rank receives the sums of an even share of the labels, in order, and makes their
// regions. Returns the number of components.
template <class VisitSeams, class Id>
index_t join_over_ranks(ProcessGroup const& group, Grid const& grid, std::vector<std::size_t> const& mine,
                        std::vector<std::size_t> const& offset, std::vector<RegionTotals>& partials,
                        std::map<std::size_t, std::uint64_t> const& edge_rows, VisitSeams&& visit_seams, Id&& id,
                        bool stats, bool spread, std::string const& input, std::vector<Label>& number,
                        std::vector<RegionStats>& regions) {
  std::size_t const base = mine.empty() ? 0 : offset[mine.front()];  // this rank's first global index
  auto own = [&](std::size_t g) { return g >= base && g < base + partials.size(); };
  // The union-find over the edges' components, node k for global index nodes[k].
  std::vector<std::size_t> nodes;
  std::vector<std::uint64_t> first_row;
  for (auto const& [g, y] : edge_rows) nodes.push_back(g), first_row.push_back(y);
  std::vector<std::size_t> parent(nodes.size());
  std::iota(parent.begin(), parent.end(), std::size_t(0));
  auto node = [&](std::size_t g) {
    return std::size_t(std::lower_bound(nodes.begin(), nodes.end(), g) - nodes.begin());
  };
  auto find = [&](std::size_t k) {
    while (parent[k] != k) k = parent[k] = parent[parent[k]];
    return k;
  };
  auto before = [&](std::size_t a, std::size_t b) {  // node order: (first row, global index)
    return first_row[a] != first_row[b] ? first_row[a] < first_row[b] : nodes[a] < nodes[b];
  };
  // The set of y joins x's: the root stays the least member, whatever the order of the joins.
  auto join = [&](std::size_t x, std::size_t y) {
    x = find(x);
    y = find(y);
    if (x == y) return false;
    if (before(y, x)) std::swap(x, y);
    parent[y] = x;
    return true;
  };
  // Each rank visits the seams of its own tiles (a run of tiles in raster order; a seam between
  // two ranks' tiles by both), then the joins it made meet on every rank: the seams' work shrinks
  // with the ranks instead of being done whole on each.
  auto own_tile = [&](index_t t) {
    return !mine.empty() && std::size_t(t) >= mine.front() && std::size_t(t) <= mine.back();
  };
  std::vector<std::uint64_t> joined;  // (global index, global index) of each join that merged two sets
  visit_seams(
      [&](index_t t, std::uint32_t a, index_t u, std::uint32_t b) {
        if (own(id(t, a))) partials[id(t, a) - base].perimeter -= 1;
        if (own(id(u, b))) partials[id(u, b) - base].perimeter -= 1;
      },
      [&](index_t t, std::uint32_t a, index_t u, std::uint32_t b) {
        std::size_t const x = node(id(t, a)), y = node(id(u, b));
        if (join(x, y)) joined.push_back(nodes[x]), joined.push_back(nodes[y]);
      },
      [&](index_t t, index_t u) { return own_tile(t) || own_tile(u); });
  {
    std::vector<unsigned char> bytes;
    detail::append_bytes(bytes, joined);
    std::vector<std::vector<unsigned char>> const all = group.all_gather(bytes);
    for (int r = 0; r < group.size(); ++r) {
      if (r == group.rank()) continue;
      std::vector<std::uint64_t> const pairs = detail::ByteReader(all[std::size_t(r)]).values<std::uint64_t>();
      for (std::size_t k = 0; k + 1 < pairs.size(); k += 2) join(node(pairs[k]), node(pairs[k + 1]));
    }
  }
  // A component's set's least member (its global index): itself off the edges.
  auto root_of = [&](std::size_t g) {
    std::size_t const k = node(g);
    return k < nodes.size() && nodes[k] == g ? nodes[find(k)] : g;
  };
  // Per (first row, tile column): the sets whose least member is there, over all ranks; then the
  // count of those before each (row, column), the number before the first set there.
  std::vector<std::uint64_t> before_count(std::size_t(grid.height * grid.across), 0);
  for (std::size_t t : mine)
    for (std::size_t g = offset[t]; g < offset[t + 1]; ++g)
      if (root_of(g) == g)
        ++before_count[std::size_t(partials[g - base].y0) * std::size_t(grid.across) + t % std::size_t(grid.across)];
  group.sum(before_count.data(), before_count.size());
  std::uint64_t total = 0;
  for (std::uint64_t& count : before_count) {
    std::uint64_t const here = count;
    count = total;
    total += here;
  }
  GIGASEG_REQUIRE(total < std::uint64_t(std::numeric_limits<Label>::max()), ErrorKind::resource, input,
                  "more components than 32-bit labels hold");
  number.assign(offset.back(), 0);
  for (std::size_t t : mine)  // labels ascend with the first pixel inside a tile
    for (std::size_t g = offset[t]; g < offset[t + 1]; ++g)
      if (root_of(g) == g)
        number[g] = Label(++before_count[std::size_t(partials[g - base].y0) * std::size_t(grid.across) +
                                         t % std::size_t(grid.across)]);
  // The edges' sets' numbers, from the ranks that numbered them.
  std::vector<unsigned char> bytes;
  std::vector<std::uint64_t> numbered;
  for (std::size_t k = 0; k < nodes.size(); ++k)
    if (find(k) == k && own(nodes[k])) numbered.push_back(nodes[k]), numbered.push_back(number[nodes[k]]);
  detail::append_bytes(bytes, numbered);
  for (auto const& theirs : group.all_gather(bytes)) {
    std::vector<std::uint64_t> const pairs = detail::ByteReader(theirs).values<std::uint64_t>();
    for (std::size_t k = 0; k + 1 < pairs.size(); k += 2) number[pairs[k]] = Label(pairs[k + 1]);
  }
  for (std::size_t g = base; g < base + partials.size(); ++g) number[g] = number[root_of(g)];
  if (stats) {  // this rank's sums by number, to rank 0 or to the ranks that own their labels
    std::map<Label, RegionTotals> sums;
    for (std::size_t g = base; g < base + partials.size(); ++g) sums[number[g]].merge(partials[g - base]);
    if (spread) {
      // Rank r owns the labels from first_of(r) to first_of(r + 1) - 1, an even share.
      auto first_of = [&](int r) { return Label(1 + total * std::uint64_t(r) / std::uint64_t(group.size())); };
      std::vector<std::vector<unsigned char>> to_each(std::size_t(group.size()));
      auto next = sums.begin();
      for (int r = 0; r < group.size(); ++r) {
        std::vector<Label> labels;
        std::vector<RegionTotals> totals;
        for (; next != sums.end() && next->first < first_of(r + 1); ++next)
          labels.push_back(next->first), totals.push_back(next->second);
        detail::append_bytes(to_each[std::size_t(r)], labels);
        detail::append_bytes(to_each[std::size_t(r)], totals);
      }
      Label const first = first_of(group.rank());
      std::vector<RegionTotals> totals(std::size_t(first_of(group.rank() + 1) - first));
      for (auto const& message : group.all_to_all(to_each)) {
        detail::ByteReader in(message);
        std::vector<Label> const labels = in.values<Label>();
        std::vector<RegionTotals> const theirs = in.values<RegionTotals>();
        for (std::size_t k = 0; k < labels.size(); ++k) totals[labels[k] - first].merge(theirs[k]);
      }
      regions.resize(totals.size());
      for (std::size_t k = 0; k < totals.size(); ++k) regions[k] = totals[k].stats(Label(first + k));
    } else if (group.rank() != 0) {
      std::vector<Label> labels;
      std::vector<RegionTotals> totals;
      for (auto const& [label, sum] : sums) labels.push_back(label), totals.push_back(sum);
      std::vector<unsigned char> message;
      detail::append_bytes(message, labels);
      detail::append_bytes(message, totals);
      group.send(0, message);
    } else {
      std::vector<RegionTotals> totals(total);
      for (auto const& [label, sum] : sums) totals[label - 1].merge(sum);
      for (int r = 1; r < group.size(); ++r) {
        std::vector<unsigned char> const message = group.receive(r);
        detail::ByteReader in(message);
        std::vector<Label> const labels = in.values<Label>();
        std::vector<RegionTotals> const theirs = in.values<RegionTotals>();
        for (std::size_t k = 0; k < labels.size(); ++k) totals[labels[k] - 1].merge(theirs[k]);
      }
      regions.resize(totals.size());
      for (std::size_t k = 0; k < totals.size(); ++k) regions[k] = totals[k].stats(Label(k + 1));
    }
  }
  return index_t(total);
}

// Label images for tiles in host memory, reused from tile to tile: a buffer is free again once
// nothing else holds it (the writer thread has stored the tile it carried). New memory for every
// tile would cost the kernel a page fault for each of its pages (64 MiB for a 4096 x 4096 tile).
class HostLabelBuffers {
 public:
  HostLabelBuffers(index_t width, index_t height) : width_(width), height_(height) {}
  // A width x height label image (at most the tile size).
  HostImage<Label> get(index_t width, index_t height) {
    for (HostImage<Label> const& buffer : buffers_)
      if (buffer.storage().use_count() == 1) return buffer.roi(0, 0, width, height);
    buffers_.emplace_back("gigaseg::tiled::labels", width_, height_);
    return buffers_.back().roi(0, 0, width, height);
  }

 private:
  index_t width_, height_;
  std::vector<HostImage<Label>> buffers_;
};

// Labels for a tile on `space`: from `buffers` in host memory; on a device, from the stream-ordered
// pool (core/scratch.hpp), released on the space's stream when this goes.
template <class Space>
class TileLabels {
 public:
  using Memory = typename Space::memory_space;
  TileLabels(Space const& space, HostLabelBuffers& buffers, index_t width, index_t height) {
    if constexpr (std::is_same<Memory, Kokkos::HostSpace>::value) {
      view_ = buffers.get(width, height);
    } else {
      (void)buffers;
      device_.emplace(space, "gigaseg::tiled::labels", width, height);
      view_ = device_->view();
    }
  }
  ImageView<Label, Memory> const& view() const noexcept { return view_; }

 private:
  std::optional<ScratchImage<Label, Space>> device_;
  ImageView<Label, Memory> view_;
};

// The work of one tile on the backend: label_tiles calls it with the tile as read (staged by
// `lanes`, which upload it), and it calls use(values, intensity) with the image to label (8-, 16-
// or 32-bit) and the intensities of the statistics (8- or 16-bit), both in the backend's memory.
//   prepare(space, lanes, InputImage const& tile, use)

// label_tiled (engine/tiled.hpp) on tiles prepared by `prepare`; `earlier_passes` passes over the
// tiles came before (for progress).
template <class Prepare>
TiledLabelResult label_tiles(ExecutionContext const& context, std::string const& input, std::string const& output,
                             LabelParams const& params, bool stats, TiledOptions const& options, Prepare const& prepare,
                             index_t earlier_passes) {
  GIGASEG_REQUIRE(params.connectivity == 4 || params.connectivity == 8, ErrorKind::usage, "LabelParams::connectivity",
                  "must be 4 or 8");
  detail::require_tile_sizes(options);
  ImageShape const shape = image_shape(input);
  Grid const grid(shape.width, shape.height, options.tile_width, options.tile_height);
  index_t const tiles = grid.across * grid.down;
  TiledLabelResult result;
  result.report.tiles = tiles;
  result.report.passes = earlier_passes + 2;
  // This rank's tiles (all of them without a group).
  std::vector<std::size_t> const mine = detail::owned_tiles(std::size_t(tiles), options.group);
  index_t const per_pass = index_t(mine.size());
  auto note_tile = [&](std::size_t bytes_read, std::size_t tile_bytes, index_t done) {
    result.report.pixel_bytes_read += bytes_read;
    result.report.peak_tile_bytes = std::max(result.report.peak_tile_bytes, tile_bytes);
    if (options.progress) options.progress(earlier_passes * per_pass + done, result.report.passes * per_pass);
  };
  auto core_of = [&](std::size_t t) { return grid.core(index_t(t) % grid.across, index_t(t) / grid.across); };
  result.report.rank_tiles = per_pass;
  for (std::size_t t : mine) result.report.rank_pixels += core_of(t).width * core_of(t).height;

  // Pass 1, on the backend: tile-local components, their sums (in image coordinates; the perimeter
  // counts the tile's edges, corrected at the seams below) and the tiles' edges.
  HostLabelBuffers buffers(grid.tile_width, grid.tile_height);
  std::vector<Edges> edges(static_cast<std::size_t>(tiles));
  // The tiles' masks, one bit a pixel, kept for the second pass when they fit the cache.
  std::size_t mask_bytes = 0;
  for (std::size_t t : mine) {
    Region const core = core_of(t);
    mask_bytes += std::size_t(packed_mask_width(core.width) * core.height) * sizeof(std::uint32_t);
  }
  bool const keep_masks = !params.equal_value && mask_bytes <= options.mask_cache_bytes;
  std::vector<HostImage<std::uint32_t>> masks(keep_masks ? std::size_t(tiles) : 0);
  result.report.kept_mask_bytes = keep_masks ? mask_bytes : 0;
  // The tile-local components' sums, in tile order; offset[t]: those of the tiles before t.
  std::vector<RegionTotals> partials;
  std::vector<std::size_t> offset(static_cast<std::size_t>(tiles) + 1, 0);
  int const threads = options.threads > 0 ? options.threads : io_threads();
  detail::DevicePeak const device_peak;
  detail::TileLanes lanes(context, options.lanes);
  detail::collectively(options.group, [&] {
    detail::TileReader first_reader(input, shape, options.tile_width, options.tile_height);
    detail::pipeline_tiles(
        mine.size(), [&](std::size_t i) { return lanes.stage(first_reader.read(core_of(mine[i])), OpFamily::label); },
        [&](std::size_t i, InputImage&& raw) {
          std::size_t const tile = mine[i];
          index_t const t = index_t(tile);
          Region const core = core_of(tile);
          std::size_t const read_bytes =
              std::size_t(core.width * core.height * bytes_per_pixel(pixel_type(raw.pixels)));
          lanes.run(core.width * core.height, OpFamily::label, [&](auto const& space) {
            using Space = std::decay_t<decltype(space)>;
            using Memory = typename Space::memory_space;
            prepare(space, lanes, raw, [&](auto const& values, auto const& intensity) {
              using T = typename std::decay_t<decltype(values)>::value_type;
              using I = typename std::decay_t<decltype(intensity)>::value_type;
              index_t const w = core.width, h = core.height;
              TileLabels<Space> const tile_labels(space, buffers, w, h);
              ImageView<Label, Memory> const& labels = tile_labels.view();
              index_t const n = label(space, values, labels, params);
              ImageView<Label const, Memory> const done(labels);
              std::vector<RegionTotals> sums = region_totals(space, done, n, intensity);
              for (RegionTotals& s : sums) s.shift(core.x, core.y);
              Edges& e = edges[std::size_t(t)];
              e.components = n;
              e.top = line_of(space, done, 0, 0, w, 1);
              e.bottom = line_of(space, done, 0, h - 1, w, 1);
              e.left = line_of(space, done, 0, 0, 1, h);
              e.right = line_of(space, done, w - 1, 0, 1, h);
              e.top_value = line_of(space, values, 0, 0, w, 1);
              e.bottom_value = line_of(space, values, 0, h - 1, w, 1);
              e.left_value = line_of(space, values, 0, 0, 1, h);
              e.right_value = line_of(space, values, w - 1, 0, 1, h);
              if (keep_masks) {
                ScratchImage<std::uint32_t, Space> const bits(space, "gigaseg::tiled::mask_bits", packed_mask_width(w),
                                                              h);
                pack_mask(space, values, bits.view());
                masks[std::size_t(t)] = download(space, bits.view());
              }
              offset[std::size_t(t) + 1] = std::size_t(n);  // the counts, summed below
              partials.insert(partials.end(), sums.begin(), sums.end());
              device_peak.sample(space, result.report.peak_device_bytes);
              note_tile(read_bytes, std::size_t(w * h) * (sizeof(T) + sizeof(I) + sizeof(Label)), index_t(i) + 1);
            });
          });
          return 0;
        },
        [](std::size_t, int) {},
        detail::PipelineWorkers{first_reader.concurrent_reads(threads), 1, &result.report.seconds});
  });
  auto const joining = std::chrono::steady_clock::now();
  bool const shared = detail::group_size(options.group) > 1;
  std::map<std::size_t, std::uint64_t> edge_rows;  // on a group: the edges' components' first rows
  if (shared) share_edges(*options.group, mine, edges, offset, partials, edge_rows);
  for (std::size_t t = 0; t < std::size_t(tiles); ++t) offset[t + 1] += offset[t];

  // The tile-local components that touch across tile edges and corners: adjacent(t, a, u, b) for
  // each pair of 4-adjacent pixels across a seam in one component (label a of tile t, b of tile u),
  // touching(t, a, u, b) for each pair that joins two components (8-connectivity: diagonals too).
  auto id = [&](index_t tile, std::uint32_t l) { return offset[std::size_t(tile)] + std::size_t(l) - 1; };
  auto connected = [&](std::uint32_t a, std::uint32_t va, std::uint32_t b, std::uint32_t vb) {
    return a != 0 && b != 0 && (!params.equal_value || va == vb);
  };
  bool const diagonal = params.connectivity == 8;
  // Only the seams between tiles t and u for which wanted(t, u) holds are visited.
  auto visit_seams = [&](auto&& adjacent, auto&& touching, auto&& wanted) {
    // Pixel i of tile t's edge `a` touches pixel i of tile u's facing edge `b`, and i - 1 and
    // i + 1 under 8-connectivity.
    auto seam = [&](index_t t, std::vector<std::uint32_t> const& a, std::vector<std::uint32_t> const& a_value,
                    index_t u, std::vector<std::uint32_t> const& b, std::vector<std::uint32_t> const& b_value) {
      std::size_t const n = a.size();
      for (std::size_t i = 0; i < n; ++i) {
        if (connected(a[i], a_value[i], b[i], b_value[i])) adjacent(t, a[i], u, b[i]);
        for (std::size_t j = (diagonal && i > 0) ? i - 1 : i; j <= std::min(n - 1, diagonal ? i + 1 : i); ++j)
          if (connected(a[i], a_value[i], b[j], b_value[j])) touching(t, a[i], u, b[j]);
      }
    };
    for (index_t r = 0; r < grid.down; ++r)
      for (index_t c = 0; c < grid.across; ++c) {
        index_t const t = r * grid.across + c;
        Edges const& a = edges[std::size_t(t)];
        if (c + 1 < grid.across && wanted(t, t + 1)) {  // the right neighbour: same rows
          Edges const& b = edges[std::size_t(t + 1)];
          seam(t, a.right, a.right_value, t + 1, b.left, b.left_value);
        }
        if (r + 1 < grid.down) {  // the neighbour below: same columns
          index_t const u = t + grid.across;
          Edges const& b = edges[std::size_t(u)];
          if (wanted(t, u)) seam(t, a.bottom, a.bottom_value, u, b.top, b.top_value);
          if (diagonal && c + 1 < grid.across && wanted(t, u + 1)) {  // the corner below right
            Edges const& d = edges[std::size_t(u + 1)];
            if (connected(a.bottom.back(), a.bottom_value.back(), d.top.front(), d.top_value.front()))
              touching(t, a.bottom.back(), u + 1, d.top.front());
          }
          if (diagonal && c > 0 && wanted(t, u - 1)) {  // the corner below left
            Edges const& d = edges[std::size_t(u - 1)];
            if (connected(a.bottom.front(), a.bottom_value.front(), d.top.back(), d.top_value.back()))
              touching(t, a.bottom.front(), u - 1, d.top.back());
          }
        }
      }
  };

  // Two 4-adjacent pixels across a seam in one component are no pixel edge of its perimeter, which
  // each tile counted as the image's border: one less for each. Components are numbered by their
  // first pixel, and their statistics reduced.
  std::vector<Label> number;
  if (!shared) {
    Components sets(std::move(partials));
    std::vector<RegionTotals>& all = sets.totals();
    visit_seams(
        [&](index_t t, std::uint32_t a, index_t u, std::uint32_t b) {
          all[id(t, a)].perimeter -= 1;
          all[id(u, b)].perimeter -= 1;
        },
        [&](index_t t, std::uint32_t a, index_t u, std::uint32_t b) { sets.join(id(t, a), id(u, b)); },
        [](index_t, index_t) { return true; });
    std::vector<std::size_t> roots;
    for (std::size_t i = 0; i < all.size(); ++i)
      if (sets.find(i) == i) roots.push_back(i);
    std::sort(roots.begin(), roots.end(), [&](std::size_t a, std::size_t b) { return sets.before(a, b); });
    GIGASEG_REQUIRE(roots.size() < std::size_t(std::numeric_limits<Label>::max()), ErrorKind::resource, input,
                    "more components than 32-bit labels hold");
    number.assign(all.size(), 0);
    for (std::size_t k = 0; k < roots.size(); ++k) number[roots[k]] = Label(k + 1);
    std::vector<RegionTotals> totals(roots.size());
    for (std::size_t i = 0; i < all.size(); ++i) {
      number[i] = number[sets.find(i)];
      totals[number[i] - 1].merge(all[i]);
    }
    result.components = index_t(roots.size());
    if (stats) {
      result.regions.resize(totals.size());
      for (std::size_t k = 0; k < totals.size(); ++k) result.regions[k] = totals[k].stats(Label(k + 1));
    }
  } else {
    result.components = join_over_ranks(*options.group, grid, mine, offset, partials, edge_rows, visit_seams, id, stats,
                                        options.spread_regions, input, number, result.regions);
  }

  result.report.join_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - joining).count();

  // Pass 2: label each tile again, renumber it on the backend and write it.
  std::unique_ptr<detail::SharedTileWriter> writer;
  detail::collectively(options.group, [&] {
    writer = std::make_unique<detail::SharedTileWriter>(options.group, output, grid.width, grid.height, PixelType::u32,
                                                        options.tile_width, options.tile_height, options.write);
    detail::TileReader second_reader(input, shape, options.tile_width, options.tile_height);
    detail::pipeline_tiles(
        mine.size(),
        [&](std::size_t i) {
          return keep_masks ? InputImage() : lanes.stage(second_reader.read(core_of(mine[i])), OpFamily::label);
        },
        [&](std::size_t i, InputImage&& raw) {
          std::size_t const tile = mine[i];
          index_t const t = index_t(tile);
          Region const core = core_of(tile);
          std::size_t const read_bytes =
              keep_masks ? 0 : std::size_t(core.width * core.height * bytes_per_pixel(pixel_type(raw.pixels)));
          detail::TileOutput<Label> out;
          lanes.run(core.width * core.height, OpFamily::label, [&](auto const& space) {
            using Space = std::decay_t<decltype(space)>;
            using Memory = typename Space::memory_space;
            // Labels `values` again, renumbers them and brings them to `out` (on a device, a
            // download the writer waits for).
            auto relabel = [&](auto const& values) {
              using T = typename std::decay_t<decltype(values)>::value_type;
              TileLabels<Space> const tile_labels(space, buffers, core.width, core.height);
              ImageView<Label, Memory> const& labels = tile_labels.view();
              index_t const n = label(space, values, labels, params);
              GIGASEG_REQUIRE(n == edges[std::size_t(t)].components, ErrorKind::input, input,
                              "changed while it was read (tile " + std::to_string(t % grid.across) + "," +
                                  std::to_string(t / grid.across) + ")");
              std::size_t const base = offset[std::size_t(t)];
              std::vector<Label> new_id(std::size_t(n) + 1, 0);
              std::copy(number.begin() + std::ptrdiff_t(base), number.begin() + std::ptrdiff_t(base + std::size_t(n)),
                        new_id.begin() + 1);
              renumber(space, labels, new_id);
              out = lanes.download(space, labels);
              device_peak.sample(space, result.report.peak_device_bytes);
              note_tile(read_bytes, std::size_t(core.width * core.height) * (sizeof(Label) + sizeof(T)),
                        index_t(mine.size() + i) + 1);
            };
            if (keep_masks) {  // the bits go through a pinned copy: the host image can go at once
              ImageView<std::uint32_t const, Memory> const bits = lanes.upload(space, masks[std::size_t(t)]);
              ScratchImage<std::uint8_t, Space> const mask(space, "gigaseg::tiled::mask", core.width, core.height);
              unpack_mask(space, bits, mask.view());
              relabel(ImageView<std::uint8_t const, Memory>(mask.view()));
            } else {
              prepare(space, lanes, raw, [&](auto const& values, auto const&) { relabel(values); });
            }
          });
          if (keep_masks) masks[std::size_t(t)] = HostImage<std::uint32_t>();
          result.report.pixel_bytes_written += std::size_t(core.width * core.height) * sizeof(Label);
          return out;
        },
        [&](std::size_t i, detail::TileOutput<Label>&& labels) {
          labels.wait();
          writer->write_tile(index_t(mine[i]) % grid.across, index_t(mine[i]) / grid.across, labels.image);
        },
        detail::PipelineWorkers{keep_masks ? 1 : second_reader.concurrent_reads(threads), threads,
                                &result.report.seconds});
  });
  writer->commit();
  return result;
}

}  // namespace

TiledLabelResult label_tiled(ExecutionContext const& context, std::string const& input, std::string const& output,
                             LabelParams const& params, bool stats, TiledOptions const& options) {
  // 8- and 16-bit gray are their own intensities; colour becomes BT.601 gray (as read_image's users
  // take it); a 32-bit image has no intensities for statistics (its tile-local sums still need an
  // 8-bit image of the tile's size: its mask); float is refused.
  auto prepare = [&](auto const& space, detail::TileLanes& lanes, InputImage const& tile, auto&& use) {
    using Space = std::decay_t<decltype(space)>;
    using Memory = typename Space::memory_space;
    AnyHostImage const& raw = tile.pixels;
    if (auto const* u16 = std::get_if<HostImage<std::uint16_t>>(&raw)) {
      ImageView<std::uint16_t const, Memory> const values = lanes.upload(space, *u16);
      use(values, values);
    } else if (auto const* u32 = std::get_if<HostImage<std::uint32_t>>(&raw)) {
      GIGASEG_REQUIRE(!stats, ErrorKind::input, input,
                      "statistics need an 8- or 16-bit image for the intensities, not a 32-bit one");
      ImageView<std::uint32_t const, Memory> const values = lanes.upload(space, *u32);
      ScratchImage<std::uint8_t, Space> const mask(space, "gigaseg::tiled::mask", values.width(), values.height());
      threshold(space, values, mask.view(), 0.0);
      use(values, ImageView<std::uint8_t const, Memory>(mask.view()));
    } else {
      GIGASEG_REQUIRE(
          std::holds_alternative<HostImage<std::uint8_t>>(raw) || std::holds_alternative<HostImage<Rgb8>>(raw),
          ErrorKind::input, input,
          std::string("needs an 8-bit gray or RGB or a 16- or 32-bit gray image, not ") + to_string(pixel_type(raw)));
      ImageView<std::uint8_t const, Memory> const values = lanes.gray8(space, tile, input);
      use(values, values);
    }
  };
  return label_tiles(context, input, output, params, stats, options, prepare, 0);
}

std::vector<std::uint64_t> histogram_tiled(ExecutionContext const& context, std::string const& input,
                                           TiledOptions const& options, StageSeconds* seconds) {
  ImageShape const shape = image_shape(input);
  Grid const grid(shape.width, shape.height, std::max<index_t>(16, options.tile_width),
                  std::max<index_t>(16, options.tile_height));
  index_t const tiles = grid.across * grid.down;
  std::vector<std::uint64_t> counts(256, 0);
  std::vector<std::size_t> const mine = detail::owned_tiles(std::size_t(tiles), options.group);
  detail::collectively(options.group, [&] {
    detail::TileReader reader(input, shape, grid.tile_width, grid.tile_height);
    detail::TileLanes lanes(context, options.lanes);
    detail::pipeline_tiles(
        mine.size(),
        [&](std::size_t i) {
          return lanes.stage(reader.read(grid.core(index_t(mine[i]) % grid.across, index_t(mine[i]) / grid.across)),
                             OpFamily::point);
        },
        [&](std::size_t i, InputImage&& raw) {
          std::size_t const t = mine[i];
          Region const core = grid.core(index_t(t) % grid.across, index_t(t) / grid.across);
          lanes.run(core.width * core.height, OpFamily::point, [&](auto const& space) {
            using Memory = typename std::decay_t<decltype(space)>::memory_space;
            ImageView<std::uint8_t const, Memory> const gray = lanes.gray8(space, raw, input);
            Counts<Memory> tile_counts("gigaseg::tiled::histogram", 256);
            histogram(space, gray, tile_counts);
            auto const host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), tile_counts);
            for (std::size_t b = 0; b < 256; ++b) counts[b] += host(b);
          });
          if (options.progress) options.progress(index_t(i) + 1, index_t(mine.size()));
          return 0;
        },
        [](std::size_t, int) {},
        detail::PipelineWorkers{reader.concurrent_reads(options.threads > 0 ? options.threads : io_threads()), 1,
                                seconds});
  });
  if (detail::group_size(options.group) > 1) options.group->sum(counts.data(), counts.size());
  return counts;
}

TiledNucleiResult segment_nuclei_tiled(ExecutionContext const& context, std::string const& input,
                                       std::string const& output, NucleiParams const& params,
                                       TiledOptions const& options) {
  detail::require_tile_sizes(options);
  ImageShape const shape = image_shape(input);
  // Pass 1: the histogram of the whole image, Otsu's threshold and the side, as otsu_mask takes them.
  TiledOptions first = options;
  first.progress = options.progress ? std::function<void(index_t, index_t)>(
                                          [&](index_t done, index_t per_pass) { options.progress(done, 3 * per_pass); })
                                    : nullptr;
  StageSeconds histogram_seconds;
  std::vector<std::uint64_t> const counts = histogram_tiled(context, input, first, &histogram_seconds);
  std::size_t const bytes_read = std::size_t(shape.width * shape.height);
  TiledNucleiResult result;
  result.threshold = otsu_bin(counts.data(), 256);
  index_t above = 0;
  for (int b = result.threshold + 1; b < 256; ++b) above += index_t(counts[std::size_t(b)]);
  result.dark = params.foreground == Foreground::dark ||
                (params.foreground == Foreground::automatic && above > shape.width * shape.height - above);
  // Passes 2 and 3: the components of the chosen side (the mask made on the backend by the
  // in-memory pipeline's own side_mask), statistics against the gray.
  int const threshold = result.threshold;
  bool const dark = result.dark;
  auto prepare = [&](auto const& space, detail::TileLanes& lanes, InputImage const& tile, auto&& use) {
    using Space = std::decay_t<decltype(space)>;
    using Memory = typename Space::memory_space;
    GIGASEG_REQUIRE(std::holds_alternative<HostImage<std::uint8_t>>(tile.pixels) ||
                        std::holds_alternative<HostImage<Rgb8>>(tile.pixels),
                    ErrorKind::input, input, "the nuclei pipeline needs an 8-bit gray or RGB image");
    ImageView<std::uint8_t const, Memory> const gray = lanes.gray8(space, tile, input);
    ScratchImage<std::uint8_t, Space> const mask(space, "gigaseg::tiled::mask", gray.width(), gray.height());
    pipeline::side_mask(space, gray, mask.view(), threshold, dark);
    use(ImageView<std::uint8_t const, Memory>(mask.view()), gray);
  };
  LabelParams label_params;
  label_params.connectivity = params.connectivity;
  TiledLabelResult labelled = label_tiles(context, input, output, label_params, true, options, prepare, 1);
  result.components = labelled.components;
  result.regions = std::move(labelled.regions);
  result.report = labelled.report;
  result.report.pixel_bytes_read += bytes_read;
  result.report.seconds.read += histogram_seconds.read;
  result.report.seconds.compute += histogram_seconds.compute;
  return result;
}

TiledKMeansResult segment_kmeans_tiled(ExecutionContext const& context, std::string const& input,
                                       std::string const& output, KMeansSegmentParams const& params,
                                       TiledOptions const& options) {
  int const k = params.kmeans.k;
  GIGASEG_REQUIRE(params.object_class < k, ErrorKind::usage, "KMeansSegmentParams::object_class",
                  "the object class must be below k = " + std::to_string(k));
  // The clustering's pass, then the labelling's two.
  TiledOptions first = options;
  first.progress = options.progress ? std::function<void(index_t, index_t)>(
                                          [&](index_t done, index_t per_pass) { options.progress(done, 3 * per_pass); })
                                    : nullptr;
  TiledKMeansFit fit = kmeans_fit_tiled(input, params.kmeans, first);
  TiledKMeansResult result;
  result.object_class = params.object_class >= 0
                            ? params.object_class
                            : pipeline::kmeans_object_class(params.foreground, fit.class_pixels[0],
                                                            fit.class_pixels[std::size_t(k - 1)], k);
  result.clusters = fit.clusters;
  // The labelling: each tile's classes from the final centres, the mask of the object class, its
  // components, statistics against the gray.
  int const object = result.object_class;
  KMeansModel const& model = fit.model;
  auto prepare = [&](auto const& space, detail::TileLanes& lanes, InputImage const& tile, auto&& use) {
    using Space = std::decay_t<decltype(space)>;
    using Memory = typename Space::memory_space;
    auto const* colour = std::get_if<HostImage<Rgb8>>(&tile.pixels);  // gray: R = G = B, as in memory
    ImageView<Rgb8 const, Memory> const rgb =
        colour != nullptr ? lanes.upload(space, *colour, tile.memory)
                          : lanes.upload(space, rgb8_of(tile.pixels, input, "the kmeans pipeline"));
    ScratchImage<std::uint8_t, Space> const classes(space, "gigaseg::tiled::classes", rgb.width(), rgb.height());
    kmeans_assign(space, rgb, model, classes.view());
    ScratchImage<std::uint8_t, Space> const mask(space, "gigaseg::tiled::mask", rgb.width(), rgb.height());
    pipeline::class_mask(space, ImageView<std::uint8_t const, Memory>(classes.view()), mask.view(), object);
    ScratchImage<std::uint8_t, Space> const gray(space, "gigaseg::tiled::gray", rgb.width(), rgb.height());
    rgb_to_gray(space, rgb, gray.view());
    use(ImageView<std::uint8_t const, Memory>(mask.view()), ImageView<std::uint8_t const, Memory>(gray.view()));
  };
  LabelParams label_params;
  label_params.connectivity = params.connectivity;
  TiledLabelResult labelled = label_tiles(context, input, output, label_params, true, options, prepare, 1);
  result.components = labelled.components;
  result.regions = std::move(labelled.regions);
  result.report = labelled.report;
  result.report.pixel_bytes_read += fit.report.pixel_bytes_read;
  result.report.peak_tile_bytes = std::max(result.report.peak_tile_bytes, fit.report.peak_tile_bytes);
  result.report.seconds.read += fit.report.seconds.read;
  result.report.seconds.compute += fit.report.seconds.compute;
  return result;
}

}  // namespace gigaseg
