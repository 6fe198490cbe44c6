// gigaseg edt: exact Euclidean distance from each nonzero pixel to the nearest zero pixel, as a
// float32 TIFF (scipy.ndimage.distance_transform_edt). RGB input becomes BT.601 gray first.
#include "gigaseg/algorithms/distance.hpp"
#include "apps/gigaseg/filter_command.hpp"

namespace gigaseg::cli {

Command make_edt_command(CLI::App& parent) {
  struct Arguments {
    std::string input, output;
  };
  auto arguments = std::make_shared<Arguments>();
  Command command;
  command.name = "edt";
  command.app = parent.add_subcommand("edt", "exact Euclidean distance to the nearest zero pixel, float32 TIFF");
  command.app->add_option("IN", arguments->input, "input image (8-bit gray or RGB; zero pixels are the background)")
      ->required();
  command.app->add_option("OUT", arguments->output, "output image (.tif, 32-bit float)")->required();
  command.run = [arguments](Session& session) {
    run_gray8_filter<float>(session, arguments->input, arguments->output, OpFamily::distance,
                            [&](auto const& space, auto const& in, auto const& out) {
                              try {
                                distance_transform(space, in, out);
                              } catch (Error const& e) {  // the input errors are about the image: name its file
                                if (e.kind() != ErrorKind::input) throw;
                                throw Error(ErrorKind::input, arguments->input, e.reason());
                              }
                            });
    session.report["command"] = "edt";
  };
  return command;
}

}  // namespace gigaseg::cli
