// gigaseg convolve IN KERNEL OUT [--method auto|direct|fft]: 2-D correlation of an 8-bit image
// (RGB becomes BT.601 gray) with a float kernel read from a text file, BORDER_REPLICATE, float32
// TIFF output (cv::filter2D with CV_32F).
#include "gigaseg/algorithms/convolve.hpp"
#include "apps/gigaseg/filter_command.hpp"

#include <map>

namespace gigaseg::cli {

Command make_convolve_command(CLI::App& parent) {
  struct Arguments {
    std::string input, kernel, output, method = "auto";
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
  command.run = [arguments](Session& session) {
    static std::map<std::string, ConvolveMethod> const methods{
        {"auto", ConvolveMethod::automatic}, {"direct", ConvolveMethod::direct}, {"fft", ConvolveMethod::fft}};
    ConvolutionKernel const kernel = read_kernel_text(arguments->kernel);
    ConvolveMethod const requested = methods.at(arguments->method);
    std::string used;
    run_gray8_filter<float>(session, arguments->input, arguments->output, OpFamily::filter,
                            [&](auto const& space, auto const& in, auto const& out) {
                              using Space = std::decay_t<decltype(space)>;
                              used =
                                  convolve_method<Space>(kernel, requested) == ConvolveMethod::fft ? "fft" : "direct";
                              convolve(space, in, out, kernel, requested);
                            });
    session.report["command"] = "convolve";
    session.report["kernel_width"] = kernel.width;
    session.report["kernel_height"] = kernel.height;
    session.report["method"] = used;
  };
  return command;
}

}  // namespace gigaseg::cli
