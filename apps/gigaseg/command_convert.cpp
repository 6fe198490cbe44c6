// gigaseg convert IN OUT: re-encodes an image in the format OUT's extension names (an addition to
// the CLI contract; it exercises the readers and the atomic writers end to end). Tile by tile
// (--tile, or an image past --memory-limit) it writes a tiled TIFF a band of rows at a time
// (write_tiled_copy), never holding the whole image: the way to turn a large PNG or PGM into a file
// the tile engine reads by region.
#include "apps/gigaseg/cli.hpp"
#include "apps/gigaseg/tiling.hpp"
#include "gigaseg/core/io/image_file.hpp"

#include <iostream>

namespace gigaseg::cli {

Command make_convert_command(CLI::App& parent) {
  struct Arguments {
    std::string input, output, tiles, memory_limit;
    index_t tile = 0;
    bool bigtiff = false;
  };
  auto arguments = std::make_shared<Arguments>();
  Command command;
  command.name = "convert";
  command.app = parent.add_subcommand("convert", "re-encode an image (format from OUT's extension)");
  command.app->add_option("IN", arguments->input, "input image")->required();
  command.app->add_option("OUT", arguments->output, "output image (.png, .tif, .pgm, .ppm)")->required();
  command.app->add_option("--tiff-tile", arguments->tile, "write TIFF tiles of this size (multiple of 16)");
  command.app->add_flag("--bigtiff", arguments->bigtiff, "write BigTIFF even below 4 GiB");
  add_tiling_options(*command.app, arguments->tiles, arguments->memory_limit);
  command.run = [arguments](Session& session) {
    format_for_extension(arguments->output);  // a bad extension fails before any reading
    Tiling const tiling =
        choose_tiling(session, arguments->input, arguments->tiles, arguments->memory_limit, arguments->output);
    if (tiling.tiled()) {
      GIGASEG_REQUIRE(format_for_extension(arguments->output) == ImageFormat::tiff, ErrorKind::usage, arguments->output,
                      "tiles are written to a .tif or .tiff file");
      GIGASEG_REQUIRE(arguments->tile == 0, ErrorKind::usage, "--tiff-tile", "the tiles are --tile's");
      WriteOptions options = default_write_options();
      options.force_bigtiff = arguments->bigtiff;
      {
        StageTimer timer(session, "write");  // reading and writing interleave, a band at a time
        write_tiled_copy(arguments->input, arguments->output, tiling.tile_width, tiling.tile_height, options);
      }
      ImageShape const shape = image_shape(arguments->output);
      session.timings_ms["compute"] = 0.0;
      auto& r = session.report;
      r["command"] = "convert";
      r["backend"] = "host";
      r["width"] = shape.width;
      r["height"] = shape.height;
      r["tile_width"] = tiling.tile_width;
      r["tile_height"] = tiling.tile_height;
      if (!session.options.json && !session.options.quiet)
        std::cout << arguments->output << ": " << shape.width << "x" << shape.height << " tiled " << tiling.tile_width
                  << "x" << tiling.tile_height << "\n";
      return;
    }
    AnyHostImage image;
    {
      StageTimer timer(session, "read");
      image = read_image(arguments->input);
    }
    {
      StageTimer timer(session, "write");
      WriteOptions options = default_write_options();
      options.force_bigtiff = arguments->bigtiff;
      options.tiff_tile = arguments->tile;
      write_image(arguments->output, image, options);
    }
    session.timings_ms["compute"] = 0.0;
    auto& r = session.report;
    r["command"] = "convert";
    r["backend"] = "host";
    r["width"] = width(image);
    r["height"] = height(image);
    r["pixel_type"] = to_string(pixel_type(image));
    if (!session.options.json && !session.options.quiet)
      std::cout << arguments->output << ": " << width(image) << "x" << height(image) << " "
                << to_string(pixel_type(image)) << "\n";
  };
  return command;
}

}  // namespace gigaseg::cli
