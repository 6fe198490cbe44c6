// gigaseg histogram IN [--bins N --range LO,HI]: CSV `bin,count` on stdout (or --json).
#include "apps/gigaseg/backend_dispatch.hpp"
#include "apps/gigaseg/tiling.hpp"
#include "gigaseg/algorithms/histogram.hpp"

#include <iostream>

namespace gigaseg::cli {
namespace {

void print_counts(Session const& session, std::vector<std::uint64_t> const& counts) {
  if (session.options.json || session.options.quiet) return;
  std::string csv = "bin,count\n";
  for (std::size_t b = 0; b < counts.size(); ++b) csv += std::to_string(b) + "," + std::to_string(counts[b]) + "\n";
  std::cout << csv;
}

}  // namespace

Command make_histogram_command(CLI::App& parent) {
  struct Arguments {
    std::string input, path = "auto", tile, memory_limit;
    int bins = 0;
    std::vector<double> range;
  };
  auto arguments = std::make_shared<Arguments>();
  Command command;
  command.name = "histogram";
  command.app =
      parent.add_subcommand("histogram", "256-bin histogram of an 8-bit image (or N bins over a range) as CSV");
  command.app->add_option("IN", arguments->input, "input image")->required();
  command.app->add_option("--bins", arguments->bins, "number of bins (16-bit and float images)")
      ->check(in_range(1, 1 << 20));
  command.app->add_option("--range", arguments->range, "LO,HI: the value range the bins cover")
      ->delimiter(',')
      ->expected(2);
  command.app->add_option("--path", arguments->path, "auto|portable|tuned (implementation to run)");
  add_tiling_options(*command.app, arguments->tile, arguments->memory_limit);
  command.run = [arguments](Session& session) {
    Path const path = parse_path(arguments->path);
    GIGASEG_REQUIRE((arguments->bins == 0) == arguments->range.empty(), ErrorKind::usage, "--bins",
                    "--bins and --range go together");
    Tiling const tiling = choose_tiling(session, arguments->input, arguments->tile, arguments->memory_limit);
    if (tiling.tiled()) {
      // 256 bins of the 8-bit gray, tile by tile: the same counts.
      GIGASEG_REQUIRE(arguments->bins == 0, ErrorKind::usage, "--bins", "tiles take 8-bit images' 256 bins");
      TiledOptions const options = tiled_options(tiling, session);
      std::vector<std::uint64_t> counts;
      TiledReport report;
      {
        StageTimer timer(session, "compute");
        counts = histogram_tiled(session.context, tiling.engine_input(session), options, &report.seconds);
      }
      ImageShape const shape = image_shape(arguments->input);
      report.tiles = ((shape.width + tiling.tile_width - 1) / tiling.tile_width) *
                     ((shape.height + tiling.tile_height - 1) / tiling.tile_height);
      report.passes = 1;
      auto& r = session.report;
      r["command"] = "histogram";
      r["width"] = shape.width;
      r["height"] = shape.height;
      r["counts"] = counts;
      r["tiled"] = tiled_report(tiling, report, session.group);
      return print_counts(session, counts);
    }
    AnyHostImage image;
    {
      StageTimer timer(session, "read");
      image = read_input(session, arguments->input);
    }
    PixelType const type = pixel_type(image);
    bool const binned = arguments->bins > 0;
    GIGASEG_REQUIRE(binned || type == PixelType::u8 || type == PixelType::rgb8, ErrorKind::usage, "--bins",
                    arguments->input + " is " + to_string(type) + ": give --bins N --range LO,HI");
    std::vector<std::uint64_t> counts;
    {
      StageTimer timer(session, "compute");
      on_backend(session, width(image) * height(image), OpFamily::point, [&](auto const& space) {
        using Space = std::decay_t<decltype(space)>;
        using Memory = typename Space::memory_space;
        Counts<Memory> device_counts("gigaseg::cli::counts", binned ? std::size_t(arguments->bins) : 256);
        BinRange const range =
            binned ? BinRange{arguments->bins, arguments->range[0], arguments->range[1]} : BinRange{};
        if (type == PixelType::u16 || type == PixelType::f32) {
          std::visit(
              [&](auto const& host) {
                using T = typename std::decay_t<decltype(host)>::value_type;
                if constexpr (std::is_same<T, std::uint16_t>::value || std::is_same<T, float>::value) {
                  auto on_device = upload(space, host);
                  histogram(space, ImageView<T const, Memory>(on_device), device_counts, range, HistogramParams{path});
                }
              },
              image);
        } else {
          GIGASEG_REQUIRE(type != PixelType::u32, ErrorKind::input, arguments->input,
                          "32-bit label images have no histogram");
          auto gray = gray8_on(space, image, arguments->input);
          if (binned)
            histogram(space, ImageView<std::uint8_t const, Memory>(gray), device_counts, range, HistogramParams{path});
          else
            histogram(space, ImageView<std::uint8_t const, Memory>(gray), device_counts, HistogramParams{path});
        }
        auto host_counts = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), device_counts);
        counts.assign(host_counts.data(), host_counts.data() + host_counts.extent(0));
      });
    }
    auto& r = session.report;
    r["command"] = "histogram";
    r["width"] = width(image);
    r["height"] = height(image);
    r["counts"] = counts;
    print_counts(session, counts);
  };
  return command;
}

}  // namespace gigaseg::cli
