// gigaseg edt: exact Euclidean distance from each nonzero pixel to the nearest zero pixel, as a
// float32 TIFF (scipy.ndimage.distance_transform_edt). RGB input becomes BT.601 gray first. With
// --tile or past --memory-limit, in bands of whole rows (engine/tiled.hpp, distance_tiled).
#include "gigaseg/algorithms/distance.hpp"
#include "apps/gigaseg/filter_command.hpp"

#include <algorithm>

namespace gigaseg::cli {
namespace {

// The input errors are about the image: name its file.
template <class F>
void naming_input(std::string const& input, F&& f) {
  try {
    f();
  } catch (Error const& e) {
    if (e.kind() != ErrorKind::input) throw;
    throw Error(ErrorKind::input, input, e.reason());
  }
}

}  // namespace

Command make_edt_command(CLI::App& parent) {
  struct Arguments {
    std::string input, output, tile, memory_limit;
  };
  auto arguments = std::make_shared<Arguments>();
  Command command;
  command.name = "edt";
  command.app = parent.add_subcommand("edt", "exact Euclidean distance to the nearest zero pixel, float32 TIFF");
  command.app->add_option("IN", arguments->input, "input image (8-bit gray or RGB; zero pixels are the background)")
      ->required();
  command.app->add_option("OUT", arguments->output, "output image (.tif, 32-bit float)")->required();
  add_tiling_options(*command.app, arguments->tile, arguments->memory_limit);
  command.run = [arguments](Session& session) {
    session.report["command"] = "edt";
    ImageFormat const format = format_for_extension(arguments->output);
    GIGASEG_REQUIRE(format == ImageFormat::tiff || format == ImageFormat::zarr, ErrorKind::usage, arguments->output,
                    "this command writes 32-bit float pixels: give a .tif, .tiff or .ome.zarr output");
    Tiling tiling =
        choose_tiling(session, arguments->input, arguments->tile, arguments->memory_limit, arguments->output);
    if (tiling.tiled()) {
      // Bands of whole rows: without --tile, as many rows (up to the tile's) as the memory limits hold.
      ImageShape const shape = image_shape(arguments->input);
      if (arguments->tile.empty()) {
        std::size_t const budget =
            tiling.device_budget > 0 ? std::min(tiling.budget, tiling.device_budget) : tiling.budget;
        tiling.tile_height = std::min(tiling.tile_height, distance_band_rows(shape.width, budget, tiling.threads));
      }
      TiledOptions const options = tiled_options(tiling, session);
      TiledReport report;
      {
        StageTimer timer(session, "compute");  // reading, computing and writing interleave
        naming_input(arguments->input, [&] {
          report = distance_tiled(session.context, tiling.engine_input(session), arguments->output, options);
        });
      }
      session.report["backend"] =
          to_string(session.context.resolve(shape.width * tiling.tile_height, OpFamily::distance));
      session.report["width"] = shape.width;
      session.report["height"] = shape.height;
      session.report["tiled"] = tiled_report(tiling, report, session.group);
      return;
    }
    run_gray8_filter<float>(
        session, arguments->input, arguments->output, OpFamily::distance,
        [&](auto const& space, auto const& in, auto const& out) {
          naming_input(arguments->input, [&] { distance_transform(space, in, out); });
        },
        nullptr, tiling.shape);
  };
  return command;
}

}  // namespace gigaseg::cli
