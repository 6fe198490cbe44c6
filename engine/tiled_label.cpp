// Connected components, their statistics and the nuclei pipeline under tiling (engine/tiled.hpp).
#include "gigaseg/algorithms/convert.hpp"
#include "gigaseg/algorithms/label.hpp"
#include "gigaseg/algorithms/otsu.hpp"
#include "gigaseg/core/error.hpp"
#include "gigaseg/core/io/tile_writer.hpp"
#include "gigaseg/engine/on_backend.hpp"
#include "gigaseg/engine/tile_pipeline.hpp"
#include "gigaseg/engine/tiled.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

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
  // The core with a one-pixel halo, clipped to the image.
  Region halo(Region const& core) const {
    index_t const x0 = std::max<index_t>(0, core.x - 1), y0 = std::max<index_t>(0, core.y - 1);
    index_t const x1 = std::min(width, core.x + core.width + 1), y1 = std::min(height, core.y + core.height + 1);
    return Region{x0, y0, x1 - x0, y1 - y0};
  }
};

// The pixels of a tile as one gray type: 8-bit RGB becomes BT.601 gray (as read_image's users take
// it), float is refused.
using GrayTile = std::variant<HostImage<std::uint8_t>, HostImage<std::uint16_t>, HostImage<std::uint32_t>>;

GrayTile gray_of(ExecutionContext const& context, AnyHostImage&& image, std::string const& path) {
  if (auto* u8 = std::get_if<HostImage<std::uint8_t>>(&image)) return std::move(*u8);
  if (auto* u16 = std::get_if<HostImage<std::uint16_t>>(&image)) return std::move(*u16);
  if (auto* u32 = std::get_if<HostImage<std::uint32_t>>(&image)) return std::move(*u32);
  if (auto* rgb = std::get_if<HostImage<Rgb8>>(&image)) {
    HostImage<std::uint8_t> gray("gigaseg::tiled::gray", rgb->width(), rgb->height());
    rgb_to_gray(context.host(), ImageView<Rgb8 const, Kokkos::HostSpace>(*rgb), gray);
    context.host().fence();
    return gray;
  }
  GIGASEG_THROW(
      ErrorKind::input, path,
      std::string("needs an 8-bit gray or RGB or a 16- or 32-bit gray image, not ") + to_string(pixel_type(image)));
}

// Partial statistics of one tile-local component: integer sums in image coordinates.
struct Partial {
  std::uint64_t area = 0, sum_x = 0, sum_y = 0, perimeter = 0, sum_intensity = 0;
  index_t x0 = std::numeric_limits<index_t>::max(), y0 = std::numeric_limits<index_t>::max(), x1 = -1, y1 = -1;
  std::uint64_t min_intensity = std::numeric_limits<std::uint64_t>::max(), max_intensity = 0;
  index_t first = std::numeric_limits<index_t>::max();  // raster index y * width + x of its first pixel
  void merge(Partial const& o) {
    area += o.area;
    sum_x += o.sum_x;
    sum_y += o.sum_y;
    perimeter += o.perimeter;
    sum_intensity += o.sum_intensity;
    x0 = std::min(x0, o.x0);
    y0 = std::min(y0, o.y0);
    x1 = std::max(x1, o.x1);
    y1 = std::max(y1, o.y1);
    min_intensity = std::min(min_intensity, o.min_intensity);
    max_intensity = std::max(max_intensity, o.max_intensity);
    first = std::min(first, o.first);
  }
};

// What the first pass keeps of a tile: its component count and the labels and values along its
// edges (top and bottom rows, left and right columns of its core).
struct Edges {
  index_t components = 0;
  std::vector<Label> top, bottom, left, right;
  std::vector<std::uint32_t> top_value, bottom_value, left_value, right_value;
};

// Union-find over every tile-local component (tile offset + local label - 1); the root of a set
// is the member with the smallest first pixel, so that the root is the component's first pixel.
class Components {
 public:
  explicit Components(std::vector<Partial> partials) : partials_(std::move(partials)), parent_(partials_.size()) {
    std::iota(parent_.begin(), parent_.end(), std::size_t(0));
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
    if (partials_[b].first < partials_[a].first) std::swap(a, b);
    parent_[b] = a;
  }
  std::vector<Partial>& partials() { return partials_; }

 private:
  std::vector<Partial> partials_;
  std::vector<std::size_t> parent_;
};

template <class T>
std::uint32_t value_at(HostImage<T> const& image, index_t x, index_t y) {
  return std::uint32_t(image(y, x));
}

// Labels the core of `values` (the tile with its halo; the core at (cx, cy) of it, cw x ch) on the
// backend the context picks, into host labels.
template <class T>
HostImage<Label> label_core(ExecutionContext const& context, HostImage<T> const& values, Region const& core_in_values,
                            LabelParams const& params, index_t* components) {
  HostImage<Label> labels;
  on_backend(context, core_in_values.width * core_in_values.height, OpFamily::label, [&](auto const& space) {
    using Memory = typename std::decay_t<decltype(space)>::memory_space;
    HostImage<T> const core =
        values.roi(core_in_values.x, core_in_values.y, core_in_values.width, core_in_values.height);
    auto const on_space = upload(space, core);
    ImageView<Label, Memory> out("gigaseg::tiled::labels", core.width(), core.height());
    *components = label(space, ImageView<T const, Memory>(on_space), out, params);
    labels = download(space, out);
  });
  return labels;
}

// What a tile is labelled from, and the intensities its statistics take.
struct TileInputs {
  GrayTile label_input, intensity;
};
using Prepare = std::function<TileInputs(AnyHostImage&&)>;

// label_tiled (engine/tiled.hpp) on tiles prepared by `prepare`; `earlier_passes` passes over the
// tiles came before (for progress).
TiledLabelResult label_tiles(ExecutionContext const& context, std::string const& input, std::string const& output,
                             LabelParams const& params, bool stats, TiledOptions const& options, Prepare const& prepare,
                             index_t earlier_passes) {
  GIGASEG_REQUIRE(params.connectivity == 4 || params.connectivity == 8, ErrorKind::usage, "LabelParams::connectivity",
                  "must be 4 or 8");
  GIGASEG_REQUIRE(options.tile_width >= 16 && options.tile_width % 16 == 0 && options.tile_height >= 16 &&
                      options.tile_height % 16 == 0,
                  ErrorKind::usage, "TiledOptions::tile_width",
                  "tile sizes must be multiples of 16 (they are the output's TIFF tiles)");
  ImageShape const shape = image_shape(input);
  Grid const grid(shape.width, shape.height, options.tile_width, options.tile_height);
  index_t const tiles = grid.across * grid.down;
  TiledLabelResult result;
  result.report.tiles = tiles;
  result.report.passes = earlier_passes + 2;
  auto note_tile = [&](std::size_t bytes_read, std::size_t tile_bytes, index_t done) {
    result.report.pixel_bytes_read += bytes_read;
    result.report.peak_tile_bytes = std::max(result.report.peak_tile_bytes, tile_bytes);
    if (options.progress) options.progress(earlier_passes * tiles + done, result.report.passes * tiles);
  };

  // Pass 1: tile-local components, their partial statistics and the tiles' edges.
  std::vector<Edges> edges(static_cast<std::size_t>(tiles));
  std::vector<Partial> partials;
  std::vector<std::size_t> offset(static_cast<std::size_t>(tiles) + 1, 0);
  auto halo_of = [&](std::size_t t) {
    return grid.halo(grid.core(index_t(t) % grid.across, index_t(t) / grid.across));
  };
  detail::pipeline_tiles(
      std::size_t(tiles), [&](std::size_t t) { return read_image_region(input, halo_of(t)); },
      [&](std::size_t tile, AnyHostImage&& raw) {
        index_t const t = index_t(tile), c = t % grid.across, r = t / grid.across;
        Region const core = grid.core(c, r), halo = grid.halo(core);
        std::size_t const read_bytes = std::size_t(halo.width * halo.height * bytes_per_pixel(pixel_type(raw)));
        TileInputs const inputs = prepare(std::move(raw));
        std::visit(
            [&](auto const& v, auto const& intensity) {
              using T = typename std::decay_t<decltype(v)>::value_type;
              using I = typename std::decay_t<decltype(intensity)>::value_type;
              GIGASEG_REQUIRE((!stats || !std::is_same<I, std::uint32_t>::value), ErrorKind::input, input,
                              "statistics need an 8- or 16-bit image for the intensities, not a 32-bit one");
              Region const inner{core.x - halo.x, core.y - halo.y, core.width, core.height};
              index_t n = 0;
              HostImage<Label> const labels = label_core(context, v, inner, params, &n);
              note_tile(read_bytes,
                        std::size_t(halo.width * halo.height) * (sizeof(T) + sizeof(I)) +
                            std::size_t(core.width * core.height) * sizeof(Label),
                        t + 1);
              Edges& e = edges[std::size_t(t)];
              e.components = n;
              offset[std::size_t(t) + 1] = offset[std::size_t(t)] + std::size_t(n);
              std::size_t const base = partials.size();
              partials.resize(base + std::size_t(n));
              // A pixel's neighbour is outside its component when it is past the image's border, or
              // (the halo holds the neighbouring tiles' pixels) background, or of another value in
              // equal-value mode: 4-neighbours with the same nonzero value are always connected.
              auto outside = [&](index_t hx, index_t hy, std::uint32_t value) {
                if (hx < 0 || hy < 0 || hx >= v.width() || hy >= v.height()) return true;
                std::uint32_t const other = value_at(v, hx, hy);
                return other == 0 || (params.equal_value && other != value);
              };
              for (index_t y = 0; y < core.height; ++y)
                for (index_t x = 0; x < core.width; ++x) {
                  Label const l = labels(y, x);
                  if (l == 0) continue;
                  index_t const hx = x + inner.x, hy = y + inner.y;
                  index_t const gx = core.x + x, gy = core.y + y;
                  std::uint32_t const value = value_at(v, hx, hy);
                  Partial& p = partials[base + l - 1];
                  p.area += 1;
                  p.sum_x += std::uint64_t(gx);
                  p.sum_y += std::uint64_t(gy);
                  p.x0 = std::min(p.x0, gx);
                  p.y0 = std::min(p.y0, gy);
                  p.x1 = std::max(p.x1, gx);
                  p.y1 = std::max(p.y1, gy);
                  p.first = std::min(p.first, gy * grid.width + gx);
                  std::uint32_t const level = value_at(intensity, hx, hy);
                  p.sum_intensity += level;
                  p.min_intensity = std::min<std::uint64_t>(p.min_intensity, level);
                  p.max_intensity = std::max<std::uint64_t>(p.max_intensity, level);
                  // Past the image's border counts (docs of region_stats); halo pixels past the
                  // clipped halo are past the border.
                  bool const left = gx == 0 || outside(hx - 1, hy, value);
                  bool const right = gx + 1 == grid.width || outside(hx + 1, hy, value);
                  bool const up = gy == 0 || outside(hx, hy - 1, value);
                  bool const down = gy + 1 == grid.height || outside(hx, hy + 1, value);
                  p.perimeter += std::uint64_t(left) + std::uint64_t(right) + std::uint64_t(up) + std::uint64_t(down);
                }
              index_t const w = core.width, h = core.height;
              e.top.resize(std::size_t(w));
              e.bottom.resize(std::size_t(w));
              e.top_value.resize(std::size_t(w));
              e.bottom_value.resize(std::size_t(w));
              for (index_t x = 0; x < w; ++x) {
                e.top[std::size_t(x)] = labels(0, x);
                e.bottom[std::size_t(x)] = labels(h - 1, x);
                e.top_value[std::size_t(x)] = value_at(v, x + inner.x, inner.y);
                e.bottom_value[std::size_t(x)] = value_at(v, x + inner.x, inner.y + h - 1);
              }
              e.left.resize(std::size_t(h));
              e.right.resize(std::size_t(h));
              e.left_value.resize(std::size_t(h));
              e.right_value.resize(std::size_t(h));
              for (index_t y = 0; y < h; ++y) {
                e.left[std::size_t(y)] = labels(y, 0);
                e.right[std::size_t(y)] = labels(y, w - 1);
                e.left_value[std::size_t(y)] = value_at(v, inner.x, y + inner.y);
                e.right_value[std::size_t(y)] = value_at(v, inner.x + w - 1, y + inner.y);
              }
            },
            inputs.label_input, inputs.intensity);
        return 0;
      },
      [](std::size_t, int) {});

  // Join the tile-local components that touch across tile edges and corners.
  Components sets(std::move(partials));
  auto id = [&](index_t tile, Label l) { return offset[std::size_t(tile)] + std::size_t(l) - 1; };
  auto connected = [&](Label a, std::uint32_t va, Label b, std::uint32_t vb) {
    return a != 0 && b != 0 && (!params.equal_value || va == vb);
  };
  bool const diagonal = params.connectivity == 8;
  // Joins across one seam: pixel i of tile t's edge `a` touches pixel i of tile u's facing edge
  // `b`, and i - 1 and i + 1 under 8-connectivity.
  auto join_seam = [&](index_t t, std::vector<Label> const& a, std::vector<std::uint32_t> const& a_value, index_t u,
                       std::vector<Label> const& b, std::vector<std::uint32_t> const& b_value) {
    std::size_t const n = a.size();
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = (diagonal && i > 0) ? i - 1 : i; j <= std::min(n - 1, diagonal ? i + 1 : i); ++j)
        if (connected(a[i], a_value[i], b[j], b_value[j])) sets.join(id(t, a[i]), id(u, b[j]));
  };
  for (index_t r = 0; r < grid.down; ++r)
    for (index_t c = 0; c < grid.across; ++c) {
      index_t const t = r * grid.across + c;
      Edges const& a = edges[std::size_t(t)];
      if (c + 1 < grid.across) {  // the right neighbour: same rows
        Edges const& b = edges[std::size_t(t + 1)];
        join_seam(t, a.right, a.right_value, t + 1, b.left, b.left_value);
      }
      if (r + 1 < grid.down) {  // the neighbour below: same columns
        index_t const u = t + grid.across;
        Edges const& b = edges[std::size_t(u)];
        join_seam(t, a.bottom, a.bottom_value, u, b.top, b.top_value);
        if (diagonal && c + 1 < grid.across) {  // the corner below right
          Edges const& d = edges[std::size_t(u + 1)];
          if (connected(a.bottom.back(), a.bottom_value.back(), d.top.front(), d.top_value.front()))
            sets.join(id(t, a.bottom.back()), id(u + 1, d.top.front()));
        }
        if (diagonal && c > 0) {  // the corner below left
          Edges const& d = edges[std::size_t(u - 1)];
          if (connected(a.bottom.front(), a.bottom_value.front(), d.top.back(), d.top_value.back()))
            sets.join(id(t, a.bottom.front()), id(u - 1, d.top.back()));
        }
      }
    }

  // Number the components by their first pixel and reduce their statistics.
  std::vector<Partial>& all = sets.partials();
  std::vector<std::size_t> roots;
  for (std::size_t i = 0; i < all.size(); ++i)
    if (sets.find(i) == i) roots.push_back(i);
  std::sort(roots.begin(), roots.end(), [&](std::size_t a, std::size_t b) { return all[a].first < all[b].first; });
  GIGASEG_REQUIRE(roots.size() < std::size_t(std::numeric_limits<Label>::max()), ErrorKind::resource, input,
                  "more components than 32-bit labels hold");
  std::vector<Label> number(all.size(), 0);
  for (std::size_t k = 0; k < roots.size(); ++k) number[roots[k]] = Label(k + 1);
  std::vector<Partial> totals(roots.size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    std::size_t const root = sets.find(i);
    number[i] = number[root];
    totals[number[i] - 1].merge(all[i]);
  }
  result.components = index_t(roots.size());
  if (stats) {
    result.regions.resize(totals.size());
    for (std::size_t k = 0; k < totals.size(); ++k) {
      Partial const& p = totals[k];
      RegionStats& s = result.regions[k];
      s.label = Label(k + 1);
      s.area = index_t(p.area);
      s.x0 = p.x0;
      s.y0 = p.y0;
      s.x1 = p.x1;
      s.y1 = p.y1;
      s.cx = double(p.sum_x) / double(p.area);
      s.cy = double(p.sum_y) / double(p.area);
      s.perimeter = index_t(p.perimeter);
      s.mean_intensity = double(p.sum_intensity) / double(p.area);
      s.min_intensity = double(p.min_intensity);
      s.max_intensity = double(p.max_intensity);
    }
  }

  // Pass 2: label each tile again and write the global numbers.
  TiffTileWriter writer(output, grid.width, grid.height, PixelType::u32, options.tile_width, options.tile_height,
                        options.write);
  detail::pipeline_tiles(
      std::size_t(tiles),
      [&](std::size_t t) {
        return read_image_region(input, grid.core(index_t(t) % grid.across, index_t(t) / grid.across));
      },
      [&](std::size_t tile, AnyHostImage&& raw) {
        index_t const t = index_t(tile), c = t % grid.across, r = t / grid.across;
        Region const core = grid.core(c, r);
        std::size_t const read_bytes = std::size_t(core.width * core.height * bytes_per_pixel(pixel_type(raw)));
        TileInputs const inputs = prepare(std::move(raw));
        HostImage<Label> out;
        std::visit(
            [&](auto const& v) {
              index_t n = 0;
              HostImage<Label> labels = label_core(context, v, Region{0, 0, core.width, core.height}, params, &n);
              GIGASEG_REQUIRE(n == edges[std::size_t(t)].components, ErrorKind::input, input,
                              "changed while it was read (tile " + std::to_string(c) + "," + std::to_string(r) + ")");
              std::size_t const base = offset[std::size_t(t)];
              for (index_t y = 0; y < core.height; ++y) {
                Label* row = labels.row(y);
                for (index_t x = 0; x < core.width; ++x)
                  if (row[x] != 0) row[x] = number[base + row[x] - 1];
              }
              out = labels;
              result.report.pixel_bytes_written += std::size_t(core.width * core.height) * sizeof(Label);
              note_tile(read_bytes, std::size_t(core.width * core.height) * (sizeof(Label) + sizeof(v(0, 0))),
                        tiles + t + 1);
            },
            inputs.label_input);
        return out;
      },
      [&](std::size_t t, HostImage<Label>&& labels) {
        writer.write_tile(index_t(t) % grid.across, index_t(t) / grid.across, labels);
      });
  writer.commit();
  return result;
}

}  // namespace

TiledLabelResult label_tiled(ExecutionContext const& context, std::string const& input, std::string const& output,
                             LabelParams const& params, bool stats, TiledOptions const& options) {
  return label_tiles(
      context, input, output, params, stats, options,
      [&](AnyHostImage&& raw) {
        GrayTile values = gray_of(context, std::move(raw), input);
        return TileInputs{values, values};
      },
      0);
}

std::vector<std::uint64_t> histogram_tiled(ExecutionContext const& context, std::string const& input,
                                           TiledOptions const& options) {
  ImageShape const shape = image_shape(input);
  Grid const grid(shape.width, shape.height, std::max<index_t>(16, options.tile_width),
                  std::max<index_t>(16, options.tile_height));
  index_t const tiles = grid.across * grid.down;
  std::vector<std::uint64_t> counts(256, 0);
  detail::pipeline_tiles(
      std::size_t(tiles),
      [&](std::size_t t) {
        return read_image_region(input, grid.core(index_t(t) % grid.across, index_t(t) / grid.across));
      },
      [&](std::size_t t, AnyHostImage&& raw) {
        GrayTile const values = gray_of(context, std::move(raw), input);
        auto const* gray = std::get_if<HostImage<std::uint8_t>>(&values);
        GIGASEG_REQUIRE(gray != nullptr, ErrorKind::input, input, "needs an 8-bit gray or RGB image");
        for (index_t y = 0; y < gray->height(); ++y) {
          std::uint8_t const* row = gray->row(y);
          for (index_t x = 0; x < gray->width(); ++x) ++counts[row[x]];
        }
        if (options.progress) options.progress(index_t(t) + 1, tiles);
        return 0;
      },
      [](std::size_t, int) {});
  return counts;
}

TiledNucleiResult segment_nuclei_tiled(ExecutionContext const& context, std::string const& input,
                                       std::string const& output, NucleiParams const& params,
                                       TiledOptions const& options) {
  GIGASEG_REQUIRE(options.tile_width >= 16 && options.tile_width % 16 == 0 && options.tile_height >= 16 &&
                      options.tile_height % 16 == 0,
                  ErrorKind::usage, "TiledOptions::tile_width",
                  "tile sizes must be multiples of 16 (they are the output's TIFF tiles)");
  ImageShape const shape = image_shape(input);
  Grid const grid(shape.width, shape.height, options.tile_width, options.tile_height);
  index_t const tiles = grid.across * grid.down;
  // The gray tile: 8-bit gray as it is, colour as BT.601 gray; other types as segment_image refuses.
  auto gray8 = [&](AnyHostImage&& raw) {
    GrayTile values = gray_of(context, std::move(raw), input);
    auto* gray = std::get_if<HostImage<std::uint8_t>>(&values);
    GIGASEG_REQUIRE(gray != nullptr, ErrorKind::input, input, "the nuclei pipeline needs an 8-bit gray or RGB image");
    return *gray;
  };
  // Pass 1: the histogram of the whole image, Otsu's threshold and the side, as otsu_mask takes them.
  TiledOptions first = options;
  first.progress =
      options.progress
          ? std::function<void(index_t, index_t)>([&](index_t done, index_t) { options.progress(done, 3 * tiles); })
          : nullptr;
  std::vector<std::uint64_t> const counts = histogram_tiled(context, input, first);
  std::size_t const bytes_read = std::size_t(shape.width * shape.height);
  TiledNucleiResult result;
  result.threshold = otsu_bin(counts.data(), 256);
  index_t above = 0;
  for (int b = result.threshold + 1; b < 256; ++b) above += index_t(counts[std::size_t(b)]);
  result.dark = params.foreground == Foreground::dark ||
                (params.foreground == Foreground::automatic && above > shape.width * shape.height - above);
  // Passes 2 and 3: the components of the chosen side, statistics against the gray.
  int const t = result.threshold;
  bool const dark = result.dark;
  LabelParams label_params;
  label_params.connectivity = params.connectivity;
  TiledLabelResult labelled = label_tiles(
      context, input, output, label_params, true, options,
      [&](AnyHostImage&& raw) {
        HostImage<std::uint8_t> gray = gray8(std::move(raw));
        HostImage<std::uint8_t> mask("gigaseg::tiled::mask", gray.width(), gray.height());
        for (index_t y = 0; y < gray.height(); ++y)
          for (index_t x = 0; x < gray.width(); ++x) mask(y, x) = (gray(y, x) > t) != dark ? 255 : 0;
        return TileInputs{mask, gray};
      },
      1);
  result.components = labelled.components;
  result.regions = std::move(labelled.regions);
  result.report = labelled.report;
  result.report.pixel_bytes_read += bytes_read;
  return result;
}

}  // namespace gigaseg
