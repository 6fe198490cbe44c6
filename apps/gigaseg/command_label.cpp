// gigaseg label IN OUT [--connectivity 4|8] [--stats CSV] [--equal-value]: connected components of
// the nonzero pixels, canonical numbering (docs/cli.md); prints N.
#include "apps/gigaseg/backend_dispatch.hpp"
#include "apps/gigaseg/label_output.hpp"
#include "gigaseg/core/io/atomic_file.hpp"
#include "gigaseg/algorithms/label.hpp"
#include "gigaseg/algorithms/region_stats.hpp"
#include "gigaseg/engine/tiled.hpp"

#include <unistd.h>

#include <cstdio>
#include <iostream>

namespace gigaseg::cli {
namespace {

// "WxH" (multiples of 16), or a usage error naming --tile.
std::pair<index_t, index_t> parse_tile(std::string const& text) {
  long long w = 0, h = 0;
  char extra = 0;
  bool const parsed = std::sscanf(text.c_str(), "%lldx%lld%c", &w, &h, &extra) == 2;
  GIGASEG_REQUIRE(parsed && w >= 16 && h >= 16 && w % 16 == 0 && h % 16 == 0 && w <= 65536 && h <= 65536,
                  ErrorKind::usage, "--tile",
                  "'" + text + "' is not WxH with W and H multiples of 16 between 16 and 65536 (e.g. 4096x4096)");
  return {index_t(w), index_t(h)};
}

// "N", "NK", "NM" or "NG" bytes, or a usage error naming --memory-limit.
std::size_t parse_bytes(std::string const& text) {
  double value = 0;
  char unit = 0, extra = 0;
  int const fields = std::sscanf(text.c_str(), "%lf%c%c", &value, &unit, &extra);
  double scale = 1;
  if (fields >= 2)
    scale = unit == 'K' || unit == 'k'   ? 1024.0
            : unit == 'M' || unit == 'm' ? 1048576.0
            : unit == 'G' || unit == 'g' ? 1073741824.0
                                         : 0;
  GIGASEG_REQUIRE(fields >= 1 && fields <= 2 && scale > 0 && value > 0, ErrorKind::usage, "--memory-limit",
                  "'" + text + "' is not a size such as 8G, 512M or 1000000");
  return std::size_t(value * scale);
}

// The memory an in-memory label run may take: --memory-limit, else three quarters of the host
// memory available now.
std::size_t memory_budget(std::string const& limit) {
  if (!limit.empty()) return parse_bytes(limit);
  return std::size_t(double(sysconf(_SC_AVPHYS_PAGES)) * double(sysconf(_SC_PAGE_SIZE)) * 0.75);
}

// Bytes a pixel the in-memory labelling holds at its peak: the input (at most 4), the labels (4)
// and the union-find's parents and the statistics' scratch (8).
constexpr double label_bytes_per_pixel = 16;

}  // namespace

Command make_label_command(CLI::App& parent) {
  struct Arguments {
    std::string input, output, stats, path = "auto", tile, memory_limit;
    int connectivity = 8;
    bool equal_value = false;
  };
  auto arguments = std::make_shared<Arguments>();
  Command command;
  command.name = "label";
  command.app = parent.add_subcommand("label", "connected components of the nonzero pixels, numbered in raster order");
  command.app->add_option("IN", arguments->input, "input image (8-bit gray or RGB, 16- or 32-bit gray)")->required();
  command.app->add_option("OUT", arguments->output, "label image (.tif: 32-bit; .png: if N fits 16 bits)")->required();
  command.app->add_option("--connectivity", arguments->connectivity, "4 or 8")->check(CLI::IsMember({4, 8}));
  command.app->add_option("--stats", arguments->stats, "CSV: label,area,x0,y0,x1,y1,cx,cy,perimeter,mean_intensity");
  command.app->add_flag("--equal-value", arguments->equal_value,
                        "components of connected pixels with the same nonzero value (class maps)");
  command.app->add_option("--path", arguments->path, "auto|portable|tuned");
  command.app->add_option("--tile", arguments->tile,
                          "WxH: label a TIFF tile by tile (W, H multiples of 16), never whole in memory; the "
                          "labels are the same, written as a tiled TIFF");
  command.app->add_option("--memory-limit", arguments->memory_limit,
                          "SIZE (e.g. 8G): a TIFF whose labelling would take more is labelled in 4096x4096 "
                          "tiles; default 3/4 of the available host memory");
  command.run = [arguments](Session& session) {
    check_label_output(arguments->output);
    if (!arguments->stats.empty()) {
      AtomicOutput check(arguments->stats);  // a missing folder fails before any work
    }
    std::pair<index_t, index_t> tile{0, 0};
    if (!arguments->tile.empty()) tile = parse_tile(arguments->tile);
    std::size_t const budget = memory_budget(arguments->memory_limit);
    if (tile.first == 0 && detect_format(arguments->input) == ImageFormat::tiff) {
      ImageShape const shape = image_shape(arguments->input);
      if (double(shape.width) * double(shape.height) * label_bytes_per_pixel > double(budget)) tile = {4096, 4096};
    }
    if (tile.first > 0) {
      GIGASEG_REQUIRE(format_for_extension(arguments->output) == ImageFormat::tiff, ErrorKind::usage, arguments->output,
                      "tiled labels are written to a .tif or .tiff file");
      LabelParams params;
      params.connectivity = arguments->connectivity;
      params.equal_value = arguments->equal_value;
      params.path = parse_path(arguments->path);
      TiledOptions options;
      options.tile_width = tile.first;
      options.tile_height = tile.second;
      TiledLabelResult result;
      {
        StageTimer timer(session, "compute");  // reading, labelling and writing interleave
        result = label_tiled(session.context, arguments->input, arguments->output, params, !arguments->stats.empty(),
                             options);
      }
      {
        StageTimer timer(session, "write");
        if (!arguments->stats.empty()) write_stats_csv(arguments->stats, result.regions);
      }
      ImageShape const shape = image_shape(arguments->input);
      auto& r = session.report;
      r["command"] = "label";
      r["backend"] = to_string(session.context.resolve(tile.first * tile.second, OpFamily::label));
      r["width"] = shape.width;
      r["height"] = shape.height;
      r["connectivity"] = params.connectivity;
      r["components"] = result.components;
      r["tiled"] = {{"tile_width", tile.first},
                    {"tile_height", tile.second},
                    {"tiles", result.report.tiles},
                    {"passes", result.report.passes},
                    {"peak_tile_bytes", result.report.peak_tile_bytes},
                    {"pixel_bytes_read", result.report.pixel_bytes_read},
                    {"pixel_bytes_written", result.report.pixel_bytes_written},
                    {"memory_budget_bytes", budget}};
      if (!session.options.json && !session.options.quiet) std::cout << result.components << "\n";
      return;
    }
    AnyHostImage image;
    {
      StageTimer timer(session, "read");
      image = read_image(arguments->input);
    }
    GIGASEG_REQUIRE(arguments->stats.empty() || pixel_type(image) != PixelType::u32, ErrorKind::input, arguments->input,
                    "--stats needs an 8- or 16-bit image for the intensities, not a 32-bit one");
    LabelParams params;
    params.connectivity = arguments->connectivity;
    params.equal_value = arguments->equal_value;
    params.path = parse_path(arguments->path);
    HostImage<Label> labels;
    index_t components = 0;
    std::vector<RegionStats> regions;
    {
      StageTimer timer(session, "compute");
      on_backend(session, width(image) * height(image), OpFamily::label, [&](auto const& space) {
        using Memory = typename std::decay_t<decltype(space)>::memory_space;
        ImageView<Label, Memory> out("gigaseg::cli::labels", width(image), height(image));
        auto run = [&](auto const& in) {
          using T = typename std::decay_t<decltype(in)>::value_type;
          components = label(space, ImageView<std::remove_const_t<T> const, Memory>(in), out, params);
          if constexpr (!std::is_same<std::remove_const_t<T>, std::uint32_t>::value) {  // checked above
            if (!arguments->stats.empty())
              regions = region_stats(space, ImageView<Label const, Memory>(out), components,
                                     ImageView<std::remove_const_t<T> const, Memory>(in));
          }
        };
        if (auto const* u16 = std::get_if<HostImage<std::uint16_t>>(&image)) {
          run(upload(space, *u16));
        } else if (auto const* u32 = std::get_if<HostImage<std::uint32_t>>(&image)) {
          run(upload(space, *u32));
        } else {
          run(gray8_on(space, image, arguments->input));
        }
        labels = download(space, out);
      });
    }
    {
      StageTimer timer(session, "write");
      write_label_image(arguments->output, labels, components);
      if (!arguments->stats.empty()) write_stats_csv(arguments->stats, regions);
    }
    auto& r = session.report;
    r["command"] = "label";
    r["width"] = width(image);
    r["height"] = height(image);
    r["connectivity"] = params.connectivity;
    r["components"] = components;
    if (!session.options.json && !session.options.quiet) std::cout << components << "\n";
  };
  return command;
}

}  // namespace gigaseg::cli
