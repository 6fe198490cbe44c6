// gigaseg watershed RELIEF MARKERS OUT [--mask MASK] [--connectivity 4|8]: marker-based watershed
// by flooding, skimage.segmentation.watershed(relief, markers, connectivity, mask) semantics
// (algorithms/watershed.hpp), deterministic on every backend. RELIEF: 8/16-bit or float;
// MARKERS: a label image (8/16/32-bit, 0 = unlabelled); MASK: nonzero = inside. With --tile or
// past --memory-limit, tile by tile (engine/tiled.hpp, watershed_tiled).
#include "gigaseg/algorithms/watershed.hpp"
#include "apps/gigaseg/backend_dispatch.hpp"
#include "apps/gigaseg/label_output.hpp"
#include "apps/gigaseg/tiling.hpp"
#include "gigaseg/engine/tiled.hpp"

#include <algorithm>
#include <string>

namespace gigaseg::cli {
namespace {

HostImage<Label> as_labels(AnyHostImage const& image, std::string const& path) {
  HostImage<Label> labels("gigaseg::cli::markers", width(image), height(image));
  auto copy = [&](auto const& source) {
    for (index_t y = 0; y < labels.height(); ++y)
      for (index_t x = 0; x < labels.width(); ++x) labels(y, x) = Label(source(y, x));
  };
  if (auto const* a = std::get_if<HostImage<std::uint8_t>>(&image))
    copy(*a);
  else if (auto const* b = std::get_if<HostImage<std::uint16_t>>(&image))
    copy(*b);
  else if (auto const* c = std::get_if<HostImage<std::uint32_t>>(&image))
    copy(*c);
  else
    GIGASEG_THROW(ErrorKind::input, path,
                  std::string("markers must be an 8, 16 or 32-bit label image, not ") + to_string(pixel_type(image)));
  return labels;
}

HostImage<std::uint8_t> as_mask(AnyHostImage const& image, std::string const& path) {
  if (auto const* gray = std::get_if<HostImage<std::uint8_t>>(&image)) return *gray;
  HostImage<std::uint8_t> mask("gigaseg::cli::mask", width(image), height(image));
  auto copy = [&](auto const& source) {
    for (index_t y = 0; y < mask.height(); ++y)
      for (index_t x = 0; x < mask.width(); ++x) mask(y, x) = source(y, x) != 0 ? 1 : 0;
  };
  if (auto const* b = std::get_if<HostImage<std::uint16_t>>(&image))
    copy(*b);
  else if (auto const* c = std::get_if<HostImage<std::uint32_t>>(&image))
    copy(*c);
  else
    GIGASEG_THROW(ErrorKind::input, path,
                  std::string("the mask must be a gray image, not ") + to_string(pixel_type(image)));
  return mask;
}

}  // namespace

Command make_watershed_command(CLI::App& parent) {
  struct Arguments {
    std::string relief, markers, output, mask, tile, memory_limit;
    int connectivity = 4;
  };
  auto arguments = std::make_shared<Arguments>();
  Command command;
  command.name = "watershed";
  command.app =
      parent.add_subcommand("watershed", "marker-based watershed by flooding (skimage.segmentation.watershed)");
  command.app->add_option("RELIEF", arguments->relief, "relief image (8/16-bit or float)")->required();
  command.app->add_option("MARKERS", arguments->markers, "marker label image (0 = unlabelled)")->required();
  command.app->add_option("OUT", arguments->output, "output labels (.tif 32-bit, or .png/.pgm 16-bit if they fit)")
      ->required();
  command.app->add_option("--mask", arguments->mask, "pixels where the mask is 0 get label 0");
  command.app
      ->add_option("--connectivity", arguments->connectivity,
                   "4 or 8 neighbours (skimage's 1 or 2; default 4 as skimage)")
      ->check(CLI::IsMember({4, 8}));
  add_tiling_options(*command.app, arguments->tile, arguments->memory_limit);
  command.run = [arguments](Session& session) {
    check_label_output(arguments->output);
    session.report["command"] = "watershed";
    session.report["connectivity"] = arguments->connectivity;
    Tiling const tiling =
        choose_tiling(session, arguments->relief, arguments->tile, arguments->memory_limit, arguments->output);
    if (tiling.tiled()) {
      GIGASEG_REQUIRE(format_for_extension(arguments->output) == ImageFormat::tiff ||
                          format_for_extension(arguments->output) == ImageFormat::zarr,
                      ErrorKind::usage, arguments->output,
                      "tiled labels are written to a .tif, .tiff or .ome.zarr output");
      for (std::string const* path : {&arguments->markers, &arguments->mask})
        GIGASEG_REQUIRE(path->empty() || format_for_extension(*path) == ImageFormat::tiff, ErrorKind::usage, *path,
                        "tile by tile the markers and the mask are read by region: give TIFF files");
      TiledWatershedResult result;
      {
        StageTimer timer(session, "compute");  // reading, flooding and writing interleave
        result = watershed_tiled(session.context, tiling.engine_input(session), arguments->markers, arguments->mask,
                                 arguments->output, WatershedParams{arguments->connectivity},
                                 tiled_options(tiling, session));
      }
      ImageShape const shape = image_shape(arguments->relief);
      session.report["width"] = shape.width;
      session.report["height"] = shape.height;
      session.report["tiled"] = tiled_report(tiling, result.report, session.group);
      session.report["tiled"]["rounds"] = result.rounds;
      session.report["tiled"]["tile_computations"] = result.tile_computations;
      return;
    }
    AnyHostImage relief;
    HostImage<Label> markers;
    HostImage<std::uint8_t> mask;
    {
      StageTimer timer(session, "read");
      relief = read_input(session, arguments->relief);
      markers = as_labels(read_image(arguments->markers), arguments->markers);
      if (!arguments->mask.empty()) mask = as_mask(read_image(arguments->mask), arguments->mask);
    }
    auto same_size = [&](index_t w, index_t h, std::string const& path) {
      GIGASEG_REQUIRE(w == width(relief) && h == height(relief), ErrorKind::input, path,
                      std::to_string(w) + "x" + std::to_string(h) + " differs from the relief's " +
                          std::to_string(width(relief)) + "x" + std::to_string(height(relief)));
    };
    same_size(markers.width(), markers.height(), arguments->markers);
    if (!arguments->mask.empty()) same_size(mask.width(), mask.height(), arguments->mask);
    HostImage<Label> labels;
    {
      StageTimer timer(session, "compute");
      on_backend(session, width(relief) * height(relief), OpFamily::distance, [&](auto const& space) {
        using Memory = typename std::decay_t<decltype(space)>::memory_space;
        ImageView<Label, Memory> out("gigaseg::cli::watershed", markers.width(), markers.height());
        ImageView<std::uint8_t const, Memory> device_mask;
        if (!mask.empty()) device_mask = upload(space, mask);
        auto run = [&](auto const& device_relief) {
          using T = typename std::decay_t<decltype(device_relief)>::non_const_value_type;
          watershed(space, ImageView<T const, Memory>(device_relief),
                    ImageView<Label const, Memory>(upload(space, markers)), out,
                    WatershedParams{arguments->connectivity}, device_mask);
        };
        if (auto const* a = std::get_if<HostImage<std::uint8_t>>(&relief))
          run(upload(space, *a));
        else if (auto const* b = std::get_if<HostImage<std::uint16_t>>(&relief))
          run(upload(space, *b));
        else if (auto const* c = std::get_if<HostImage<float>>(&relief))
          run(upload(space, *c));
        else
          GIGASEG_THROW(ErrorKind::input, arguments->relief,
                        std::string("the relief must be 8/16-bit or float, not ") + to_string(pixel_type(relief)));
        labels = download(space, out);
      });
    }
    Label largest = 0;
    for (index_t y = 0; y < labels.height(); ++y)
      for (index_t x = 0; x < labels.width(); ++x) largest = std::max(largest, labels(y, x));
    {
      StageTimer timer(session, "write");
      write_label_image(arguments->output, labels, index_t(largest));
    }
    session.report["width"] = labels.width();
    session.report["height"] = labels.height();
    session.report["largest_label"] = largest;
  };
  return command;
}

}  // namespace gigaseg::cli
