#pragma once
// The shape shared by the image-to-image commands (median, gaussian, sobel, morph, convolve): read
// an image, convert it to 8-bit gray on the backend, compute an output image there, bring it back
// and write it atomically; stages timed, size reported.
#include "apps/gigaseg/backend_dispatch.hpp"
#include "apps/gigaseg/tiling.hpp"
#include "gigaseg/engine/tiled.hpp"

#include <functional>
#include <string>
#include <type_traits>
#include <utility>

namespace gigaseg::cli {

// The --tile / --memory-limit request of a command that can run tile by tile, and the halo its
// operation needs (the input pixels an output pixel depends on, on each side).
struct FilterTiling {
  std::string tile, memory_limit;
  index_t halo = 0;
  std::function<void()> before_tiles;  // called once the image is to run tile by tile
};

// The image tile by tile (engine/tiled.hpp, filter_tiled): compute(space, in, out) on each tile
// read with `halo`; the output a tiled TIFF; --json reports the tiling.
template <class OutT, class Compute>
void run_tiled_gray8_filter(Session& session, std::string const& input, std::string const& output, OpFamily family,
                            Compute&& compute, index_t halo, Tiling const& chosen) {
  GIGASEG_REQUIRE(
      format_for_extension(output) == ImageFormat::tiff || format_for_extension(output) == ImageFormat::zarr,
      ErrorKind::usage, output, "tiles are written to a .tif, .tiff or .ome.zarr output");
  TiledOptions const options = tiled_options(chosen, session);
  TiledReport report;
  {
    StageTimer timer(session, "compute");  // reading, computing and writing interleave
    report = filter_tiled<OutT>(session.context, chosen.engine_input(session), output, halo, family, compute, options);
  }
  ImageShape const shape = image_shape(input);
  session.report["backend"] = to_string(session.context.resolve(chosen.tile_width * chosen.tile_height, family));
  session.report["width"] = shape.width;
  session.report["height"] = shape.height;
  session.report["tiled"] = tiled_report(chosen, report, session.group);
}

// compute(space, in, out) fills `out` (OutT, same size as the image) from the gray image `in`.
// With `tiling` (and --tile given, or a TIFF past --memory-limit) the image is computed tile by
// tile (run_tiled_gray8_filter), with the same output. `shape`: the input's size where the caller
// read its header already (0 x 0: read here).
template <class OutT, class Compute>
void run_gray8_filter(Session& session, std::string const& input, std::string const& output, OpFamily family,
                      Compute&& compute, FilterTiling const* tiling = nullptr, ImageShape shape = {}) {
  ImageFormat const format = format_for_extension(output);  // a bad OUT fails before any work
  if constexpr (std::is_same<OutT, float>::value)
    GIGASEG_REQUIRE(format == ImageFormat::tiff || format == ImageFormat::zarr, ErrorKind::usage, output,
                    "this command writes 32-bit float pixels: give a .tif, .tiff or .ome.zarr output");
  if (tiling != nullptr) {
    Tiling const chosen = choose_tiling(session, input, tiling->tile, tiling->memory_limit, output);
    shape = chosen.shape;
    if (chosen.tiled()) {
      if (tiling->before_tiles) tiling->before_tiles();
      return run_tiled_gray8_filter<OutT>(session, input, output, family, std::forward<Compute>(compute), tiling->halo,
                                          chosen);
    }
  }
  OutputAhead<OutT> ahead(session, shape.width > 0 || tiling != nullptr ? shape : shape_if_known(input), family,
                          "gigaseg::cli::filtered");
  AnyHostImage image;
  {
    StageTimer timer(session, "read");
    image = read_input(session, input);
  }
  HostImage<OutT> result;
  {
    StageTimer timer(session, "compute");
    on_backend(session, width(image) * height(image), family, [&](auto const& space) {
      using Memory = typename std::decay_t<decltype(space)>::memory_space;
      ImageView<std::uint8_t const, Memory> in = gray8_on(space, image, input);
      ImageView<OutT, Memory> const out = ahead.template take<Memory>(in.width(), in.height());
      compute(space, in, out);
      result = download(space, out);
    });
  }
  {
    StageTimer timer(session, "write");
    write_image(output, result);
  }
  session.report["width"] = width(image);
  session.report["height"] = height(image);
}

}  // namespace gigaseg::cli
