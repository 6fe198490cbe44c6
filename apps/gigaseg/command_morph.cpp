// gigaseg morph IN OUT --op erode|dilate|open|close|gradient --se rect|cross|ellipse --size K:
// identical to cv::morphologyEx with cv::getStructuringElement(shape, {K, K}) for 8-bit input
// (an RGB input is converted to gray first, with OpenCV's BT.601 rule).
#include "apps/gigaseg/filter_command.hpp"
#include "gigaseg/algorithms/morphology.hpp"

#include <map>

namespace gigaseg::cli {

Command make_morph_command(CLI::App& parent) {
  struct Arguments {
    std::string input, output, op, se = "rect";
    int size = 3;
    FilterTiling tiling;
  };
  auto arguments = std::make_shared<Arguments>();
  Command command;
  command.name = "morph";
  command.app = parent.add_subcommand("morph", "grey-level morphology of an 8-bit image");
  command.app->add_option("IN", arguments->input, "input image (8-bit gray or RGB)")->required();
  command.app->add_option("OUT", arguments->output, "output image (8-bit)")->required();
  command.app->add_option("--op", arguments->op, "erode|dilate|open|close|gradient")
      ->required()
      ->check(CLI::IsMember({"erode", "dilate", "open", "close", "gradient"}));
  command.app->add_option("--se", arguments->se, "rect|cross|ellipse")
      ->check(CLI::IsMember({"rect", "cross", "ellipse"}));
  command.app->add_option("--size", arguments->size, "odd side K of the structuring element")->required();
  add_tiling_options(*command.app, arguments->tiling.tile, arguments->tiling.memory_limit);
  command.run = [arguments](Session& session) {
    static std::map<std::string, MorphOp> const ops{{"erode", MorphOp::erode},
                                                    {"dilate", MorphOp::dilate},
                                                    {"open", MorphOp::open},
                                                    {"close", MorphOp::close},
                                                    {"gradient", MorphOp::gradient}};
    static std::map<std::string, StructuringShape> const shapes{
        {"rect", StructuringShape::rect}, {"cross", StructuringShape::cross}, {"ellipse", StructuringShape::ellipse}};
    MorphParams const params{ops.at(arguments->op), shapes.at(arguments->se), arguments->size};
    (void)effective_structuring_size(params.size, 1, 1);  // a bad --size fails before any work
    // An output pixel depends on the input within half the element, twice that for open and close
    // (two passes).
    bool const twice = params.op == MorphOp::open || params.op == MorphOp::close;
    arguments->tiling.halo = index_t(twice ? 2 : 1) * index_t(arguments->size / 2);
    run_gray8_filter<std::uint8_t>(
        session, arguments->input, arguments->output, OpFamily::filter,
        [&](auto const& space, auto const& in, auto const& out) { morphology(space, in, out, params); },
        &arguments->tiling);
    auto& r = session.report;
    r["command"] = "morph";
    r["op"] = arguments->op;
    r["se"] = arguments->se;
    r["size"] = arguments->size;
  };
  return command;
}

}  // namespace gigaseg::cli
