// gigaseg median | gaussian | sobel: local filters of an 8-bit image (RGB input becomes BT.601
// gray first), equal to OpenCV's medianBlur, GaussianBlur (BORDER_REFLECT_101) and Sobel 3x3
// magnitude (float32 TIFF output).
#include "gigaseg/algorithms/filters.hpp"
#include "apps/gigaseg/filter_command.hpp"

namespace gigaseg::cli {

Command make_median_command(CLI::App& parent) {
  struct Arguments {
    std::string input, output, path = "auto";
    int size = 3;
    FilterTiling tiling;
  };
  auto arguments = std::make_shared<Arguments>();
  Command command;
  command.name = "median";
  command.app = parent.add_subcommand("median", "median filter of an 8-bit image (cv::medianBlur)");
  command.app->add_option("IN", arguments->input, "input image (8-bit gray or RGB)")->required();
  command.app->add_option("OUT", arguments->output, "output image (8-bit)")->required();
  command.app->add_option("--size", arguments->size, "window side: 3 or 5")->required()->check(CLI::IsMember({3, 5}));
  command.app->add_option("--path", arguments->path, "auto|portable|tuned implementation")
      ->check(CLI::IsMember({"auto", "portable", "tuned"}));
  add_tiling_options(*command.app, arguments->tiling.tile, arguments->tiling.memory_limit);
  command.run = [arguments](Session& session) {
    FilterParams const params{parse_path(arguments->path)};
    arguments->tiling.halo = arguments->size / 2;
    run_gray8_filter<std::uint8_t>(
        session, arguments->input, arguments->output, OpFamily::filter,
        [&](auto const& space, auto const& in, auto const& out) { median(space, in, out, arguments->size, params); },
        &arguments->tiling);
    session.report["command"] = "median";
    session.report["size"] = arguments->size;
  };
  return command;
}

Command make_gaussian_command(CLI::App& parent) {
  struct Arguments {
    std::string input, output;
    double sigma = 0;
    int ksize = 0;
    FilterTiling tiling;
  };
  auto arguments = std::make_shared<Arguments>();
  Command command;
  command.name = "gaussian";
  command.app =
      parent.add_subcommand("gaussian", "Gaussian blur of an 8-bit image (cv::GaussianBlur, BORDER_REFLECT_101)");
  command.app->add_option("IN", arguments->input, "input image (8-bit gray or RGB)")->required();
  command.app->add_option("OUT", arguments->output, "output image (8-bit)")->required();
  command.app->add_option("--sigma", arguments->sigma, "standard deviation in pixels (> 0)")->required();
  command.app->add_option("--ksize", arguments->ksize, "odd kernel side (default: round(6 sigma + 1) | 1, as OpenCV)");
  add_tiling_options(*command.app, arguments->tiling.tile, arguments->tiling.memory_limit);
  command.run = [arguments](Session& session) {
    GaussianParams const params{arguments->sigma, arguments->ksize};
    int const ksize = gaussian_ksize(params);  // bad --sigma/--ksize fail before any work
    arguments->tiling.halo = ksize / 2;
    run_gray8_filter<std::uint8_t>(
        session, arguments->input, arguments->output, OpFamily::filter,
        [&](auto const& space, auto const& in, auto const& out) { gaussian(space, in, out, params); },
        &arguments->tiling);
    session.report["command"] = "gaussian";
    session.report["sigma"] = arguments->sigma;
    session.report["ksize"] = ksize;
  };
  return command;
}

Command make_sobel_command(CLI::App& parent) {
  struct Arguments {
    std::string input, output;
    FilterTiling tiling;
  };
  auto arguments = std::make_shared<Arguments>();
  Command command;
  command.name = "sobel";
  command.app =
      parent.add_subcommand("sobel", "Sobel gradient magnitude sqrt(gx^2 + gy^2) as float32 TIFF (cv::Sobel 3x3)");
  command.app->add_option("IN", arguments->input, "input image (8-bit gray or RGB)")->required();
  command.app->add_option("OUT", arguments->output, "output image (.tif, 32-bit float)")->required();
  add_tiling_options(*command.app, arguments->tiling.tile, arguments->tiling.memory_limit);
  command.run = [arguments](Session& session) {
    arguments->tiling.halo = 1;
    run_gray8_filter<float>(
        session, arguments->input, arguments->output, OpFamily::filter,
        [&](auto const& space, auto const& in, auto const& out) { sobel_magnitude(space, in, out); },
        &arguments->tiling);
    session.report["command"] = "sobel";
  };
  return command;
}

}  // namespace gigaseg::cli
