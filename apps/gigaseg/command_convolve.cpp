// gigaseg convolve IN KERNEL OUT [--method auto|direct|fft]: 2-D correlation of an 8-bit image
// (RGB becomes BT.601 gray) with a float kernel read from a text file, BORDER_REPLICATE, float32
// TIFF output (cv::filter2D with CV_32F). Tile by tile (--tile, or a TIFF past --memory-limit) with
// the direct method, the same output as the direct method in memory.
#include "gigaseg/algorithms/convolve.hpp"
#include "apps/gigaseg/filter_command.hpp"

#include <algorithm>
#include <map>

namespace gigaseg::cli {

Command make_convolve_command(CLI::App& parent) {
  struct Arguments {
    std::string input, kernel, output, method = "auto";
    FilterTiling tiling;
  };
  auto arguments = std::make_shared<Arguments>();
  Command command;
  command.name = "convolve";
  command.app =
      parent.add_subcommand("convolve", "2-D correlation with a float kernel (cv::filter2D, BORDER_REPLICATE)");
  command.app->add_option("IN", arguments->input, "input image (8-bit gray or RGB)")->required();
  command.app->add_option("KERNEL", arguments->kernel, "kernel text file: one row per line")->required();
  command.app->add_option("OUT", arguments->output, "output image (.tif, 32-bit float)")->required();
  command.app->add_option("--method", arguments->method, "auto|direct|fft")
      ->check(CLI::IsMember({"auto", "direct", "fft"}));
  add_tiling_options(*command.app, arguments->tiling.tile, arguments->tiling.memory_limit);
  command.run = [arguments](Session& session) {
    static std::map<std::string, ConvolveMethod> const methods{
        {"auto", ConvolveMethod::automatic}, {"direct", ConvolveMethod::direct}, {"fft", ConvolveMethod::fft}};
    ConvolutionKernel const kernel = read_kernel_text(arguments->kernel);
    ConvolveMethod requested = methods.at(arguments->method);
    // An output pixel depends on the input within half the kernel. Tile by tile the direct method
    // runs: each pixel's sum is the same products in the same order as on the whole image, where
    // the FFT's rounding depends on the size of the image it transforms.
    arguments->tiling.halo = index_t(std::max(kernel.width, kernel.height) / 2);
    arguments->tiling.before_tiles = [&] {
      GIGASEG_REQUIRE(requested != ConvolveMethod::fft, ErrorKind::usage, "--method",
                      "fft transforms the whole image and cannot run tile by tile; give --method direct or auto");
      requested = ConvolveMethod::direct;
    };
    std::string used;
    run_gray8_filter<float>(
        session, arguments->input, arguments->output, OpFamily::filter,
        [&](auto const& space, auto const& in, auto const& out) {
          using Space = std::decay_t<decltype(space)>;
          used = convolve_method<Space>(kernel, requested) == ConvolveMethod::fft ? "fft" : "direct";
          convolve(space, in, out, kernel, requested);
        },
        &arguments->tiling);
    session.report["command"] = "convolve";
    session.report["kernel_width"] = kernel.width;
    session.report["kernel_height"] = kernel.height;
    session.report["method"] = used;
  };
  return command;
}

}  // namespace gigaseg::cli
