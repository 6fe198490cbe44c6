// gigaseg label IN OUT [--connectivity 4|8] [--stats CSV] [--geojson FILE [--simplify TOL]]
// [--equal-value]: connected components of the nonzero pixels, canonical numbering (docs/cli.md);
// prints N.
#include "apps/gigaseg/backend_dispatch.hpp"
#include "apps/gigaseg/label_output.hpp"
#include "gigaseg/core/io/atomic_file.hpp"
#include "gigaseg/algorithms/label.hpp"
#include "gigaseg/algorithms/region_stats.hpp"
#include "apps/gigaseg/tiling.hpp"
#include "gigaseg/engine/tiled.hpp"

#include <iostream>

namespace gigaseg::cli {
Command make_label_command(CLI::App& parent) {
  struct Arguments {
    std::string input, output, stats, geojson, path = "auto", tile, memory_limit;
    int connectivity = 8;
    GeoJsonOptions outlines;
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
  add_geojson_options(*command.app, arguments->geojson, arguments->outlines);
  command.app->add_flag("--equal-value", arguments->equal_value,
                        "components of connected pixels with the same nonzero value (class maps)");
  command.app->add_option("--path", arguments->path, "auto|portable|tuned");
  add_tiling_options(*command.app, arguments->tile, arguments->memory_limit);
  command.run = [arguments](Session& session) {
    check_label_output(arguments->output);
    for (std::string const* path : {&arguments->stats, &arguments->geojson})
      if (!path->empty()) {
        AtomicOutput check(*path);  // a missing folder fails before any work
      }
    Tiling const tiling =
        choose_tiling(session, arguments->input, arguments->tile, arguments->memory_limit, arguments->output);
    if (tiling.tiled()) {
      GIGASEG_REQUIRE(format_for_extension(arguments->output) == ImageFormat::tiff ||
                          format_for_extension(arguments->output) == ImageFormat::zarr,
                      ErrorKind::usage, arguments->output,
                      "tiled labels are written to a .tif, .tiff or .ome.zarr output");
      LabelParams params;
      params.connectivity = arguments->connectivity;
      params.equal_value = arguments->equal_value;
      params.path = parse_path(arguments->path);
      TiledOptions options = tiled_options(tiling, session);
      options.spread_regions = arguments->geojson.empty();  // the outlines are traced by rank 0, with every region
      TiledLabelResult result;
      {
        StageTimer timer(session, "compute");  // reading, labelling and writing interleave
        result = label_tiled(session.context, tiling.engine_input(session), arguments->output, params,
                             !arguments->stats.empty() || !arguments->geojson.empty(), options);
      }
      {
        StageTimer timer(session, "write");
        // Every rank writes its regions' rows.
        if (!arguments->stats.empty()) write_stats_csv(session.group, arguments->stats, result.regions);
      }
      if (!arguments->geojson.empty()) {
        StageTimer timer(session, "geojson");  // the labels read back in bands of rows, traced and written
        detail::collectively(session.group, [&] {
          if (session.first_rank())
            write_geojson_tiled(arguments->geojson, arguments->output, result.regions, arguments->outlines,
                                options.memory_bytes);
        });
      }
      ImageShape const shape = image_shape(arguments->input);
      auto& r = session.report;
      r["command"] = "label";
      r["backend"] = to_string(session.context.resolve(tiling.tile_width * tiling.tile_height, OpFamily::label));
      r["width"] = shape.width;
      r["height"] = shape.height;
      r["connectivity"] = params.connectivity;
      r["components"] = result.components;
      r["tiled"] = tiled_report(tiling, result.report, session.group);
      if (!session.options.json && !session.options.quiet) std::cout << result.components << "\n";
      return;
    }
    OutputAhead<Label> ahead(session, tiling.shape, OpFamily::label, "gigaseg::cli::labels");
    AnyHostImage image;
    {
      StageTimer timer(session, "read");
      image = read_input(session, arguments->input);
    }
    bool const measured = !arguments->stats.empty() || !arguments->geojson.empty();
    GIGASEG_REQUIRE(!measured || pixel_type(image) != PixelType::u32, ErrorKind::input, arguments->input,
                    std::string(arguments->stats.empty() ? "--geojson" : "--stats") +
                        " needs an 8- or 16-bit image for the intensities, not a 32-bit one");
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
        ImageView<Label, Memory> const out = ahead.take<Memory>(width(image), height(image));
        auto run = [&](auto const& in) {
          using T = typename std::decay_t<decltype(in)>::value_type;
          components = label(space, ImageView<std::remove_const_t<T> const, Memory>(in), out, params);
          if constexpr (!std::is_same<std::remove_const_t<T>, std::uint32_t>::value) {  // checked above
            if (measured)
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
    if (!arguments->geojson.empty()) {
      StageTimer timer(session, "geojson");  // tracing the outlines and writing them
      write_geojson(arguments->geojson, labels, regions, arguments->outlines);
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
