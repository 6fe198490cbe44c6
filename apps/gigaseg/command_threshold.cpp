// gigaseg threshold IN OUT --method otsu|value=T|mean=B,C: an 8-bit mask (255 = pixel > T).
#include "apps/gigaseg/backend_dispatch.hpp"
#include "apps/gigaseg/filter_command.hpp"
#include "gigaseg/algorithms/otsu.hpp"
#include "gigaseg/algorithms/threshold.hpp"

#include <cmath>
#include <cstdlib>
#include <iostream>

namespace gigaseg::cli {
namespace {

struct Method {
  enum Kind { otsu, value, mean } kind = otsu;
  double level = 0;
  LocalMeanParams local;
};

double parse_number(std::string const& text, std::string const& what) {
  char* end = nullptr;
  double const v = std::strtod(text.c_str(), &end);
  GIGASEG_REQUIRE(!text.empty() && end != nullptr && *end == '\0' && std::isfinite(v), ErrorKind::usage, "--method",
                  "'" + text + "' is not a finite number (" + what + ")");
  return v;
}

Method parse_method(std::string const& text) {
  Method m;
  if (text == "otsu") return m;
  if (text.rfind("value=", 0) == 0) {
    m.kind = Method::value;
    m.level = parse_number(text.substr(6), "value=T");
    return m;
  }
  if (text.rfind("mean=", 0) == 0) {
    m.kind = Method::mean;
    std::string const args = text.substr(5);
    auto const comma = args.find(',');
    GIGASEG_REQUIRE(comma != std::string::npos, ErrorKind::usage, "--method", "mean needs B,C (e.g. mean=11,2)");
    double const block = parse_number(args.substr(0, comma), "mean=B,C");
    GIGASEG_REQUIRE(block == int(block), ErrorKind::usage, "--method", "block size B must be an integer");
    m.local = LocalMeanParams{int(block), parse_number(args.substr(comma + 1), "mean=B,C")};
    return m;
  }
  GIGASEG_THROW(ErrorKind::usage, "--method", "unknown method '" + text + "' (expected otsu, value=T or mean=B,C)");
}

}  // namespace

Command make_threshold_command(CLI::App& parent) {
  struct Arguments {
    std::string input, output, method, path = "auto", tile, memory_limit;
  };
  auto arguments = std::make_shared<Arguments>();
  Command command;
  command.name = "threshold";
  command.app = parent.add_subcommand("threshold", "8-bit mask: 255 where pixel > T");
  command.app->add_option("IN", arguments->input, "input image")->required();
  command.app->add_option("OUT", arguments->output, "output mask")->required();
  command.app->add_option("--method", arguments->method, "otsu | value=T | mean=B,C")->required();
  command.app->add_option("--path", arguments->path, "auto|portable|tuned (the histogram behind otsu)");
  add_tiling_options(*command.app, arguments->tile, arguments->memory_limit);
  command.run = [arguments](Session& session) {
    Method const method = parse_method(arguments->method);
    HistogramParams const params{parse_path(arguments->path)};
    format_for_extension(arguments->output);  // a bad extension fails before any work
    Tiling const tiling =
        choose_tiling(session, arguments->input, arguments->tile, arguments->memory_limit, arguments->output);
    if (tiling.tiled()) {
      // 8-bit gray (colour as gray) tile by tile: Otsu's level from the histogram of every tile.
      double level = method.level;
      if (method.kind == Method::otsu) {
        TiledOptions const options = tiled_options(tiling, session);
        level = otsu_bin(histogram_tiled(session.context, tiling.engine_input(session), options).data(), 256);
      }
      if (method.kind == Method::mean) {
        run_tiled_gray8_filter<std::uint8_t>(
            session, arguments->input, arguments->output, OpFamily::point,
            [&](auto const& space, auto const& in, auto const& out) {
              threshold_local_mean(space, in, out, method.local);
            },
            method.local.block / 2, tiling);
      } else {
        GIGASEG_REQUIRE(method.level >= 0 && method.level < 255, ErrorKind::usage, "--method",
                        "value=T must be in [0, 255) for an 8-bit image, not " + arguments->method.substr(6));
        run_tiled_gray8_filter<std::uint8_t>(
            session, arguments->input, arguments->output, OpFamily::point,
            [&](auto const& space, auto const& in, auto const& out) { threshold(space, in, out, level); }, 0, tiling);
      }
      session.report["command"] = "threshold";
      session.report["method"] = arguments->method;
      if (method.kind != Method::mean) session.report["threshold"] = level;
      if (!session.options.json && !session.options.quiet && method.kind != Method::mean) std::cout << level << "\n";
      return;
    }
    OutputAhead<std::uint8_t> ahead(session, tiling.shape, OpFamily::point, "gigaseg::cli::mask");
    AnyHostImage image;
    {
      StageTimer timer(session, "read");
      image = read_input(session, arguments->input);
    }
    PixelType const type = pixel_type(image);
    // value=T (mask: pixel > T) must split the pixel type's range; past it every pixel, or none,
    // would be foreground whatever the image.
    if (method.kind == Method::value && type != PixelType::f32) {
      double const top = type == PixelType::u16 ? 65535 : type == PixelType::u32 ? 4294967295.0 : 255;
      GIGASEG_REQUIRE(method.level >= 0 && method.level < top, ErrorKind::usage, "--method",
                      "value=T must be in [0, " + std::to_string(long(top)) + ") for this " + to_string(type) +
                          " image, not " + arguments->method.substr(6));
    }
    HostImage<std::uint8_t> mask;
    double level = method.level;
    {
      StageTimer timer(session, "compute");
      on_backend(session, width(image) * height(image), OpFamily::point, [&](auto const& space) {
        using Space = std::decay_t<decltype(space)>;
        using Memory = typename Space::memory_space;
        ImageView<std::uint8_t, Memory> const out = ahead.take<Memory>(width(image), height(image));
        if (type == PixelType::u16 || type == PixelType::f32) {
          GIGASEG_REQUIRE(method.kind != Method::mean, ErrorKind::input, arguments->input,
                          "mean=B,C takes 8-bit images (this one is " + std::string(to_string(type)) + ")");
          std::visit(
              [&](auto const& host) {
                using T = typename std::decay_t<decltype(host)>::value_type;
                if constexpr (std::is_same<T, std::uint16_t>::value || std::is_same<T, float>::value) {
                  ImageView<T const, Memory> in = upload(space, host);
                  if (method.kind == Method::otsu) level = otsu_threshold(space, in, 256, params);
                  threshold(space, in, out, level);
                }
              },
              image);
        } else {
          GIGASEG_REQUIRE(type != PixelType::u32, ErrorKind::input, arguments->input,
                          "cannot threshold a 32-bit label image");
          ImageView<std::uint8_t const, Memory> in = gray8_on(space, image, arguments->input);
          if (method.kind == Method::mean) {
            threshold_local_mean(space, in, out, method.local);
          } else {
            if (method.kind == Method::otsu) level = otsu_threshold(space, in, params);
            threshold(space, in, out, level);
          }
        }
        mask = download(space, out);
      });
    }
    {
      StageTimer timer(session, "write");
      write_image(arguments->output, mask);
    }
    auto& r = session.report;
    r["command"] = "threshold";
    r["width"] = width(image);
    r["height"] = height(image);
    r["method"] = arguments->method;
    if (method.kind != Method::mean) r["threshold"] = level;
    if (!session.options.json && !session.options.quiet) {
      if (method.kind == Method::mean)
        std::cout << "local mean threshold B=" << method.local.block << " C=" << method.local.c << "\n";
      else
        std::cout << level << "\n";
    }
  };
  return command;
}

}  // namespace gigaseg::cli
