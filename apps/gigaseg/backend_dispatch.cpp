// The non-template helpers of backend_dispatch.hpp.
#include "apps/gigaseg/backend_dispatch.hpp"

namespace gigaseg::cli {

Path parse_path(std::string const& text) {
  if (text == "auto") return Path::automatic;
  if (text == "portable") return Path::portable;
  if (text == "tuned") return Path::tuned;
  GIGASEG_THROW(ErrorKind::usage, "--path", "unknown path '" + text + "' (expected auto, portable or tuned)");
}

HostImage<Rgb8> rgb8_of(AnyHostImage const& image, std::string const& path, char const* command) {
  if (auto const* colour = std::get_if<HostImage<Rgb8>>(&image)) return *colour;
  auto const* gray = std::get_if<HostImage<std::uint8_t>>(&image);
  GIGASEG_REQUIRE(gray, ErrorKind::input, path,
                  std::string(command) + " needs an 8-bit RGB or gray image, not " + to_string(pixel_type(image)));
  HostImage<Rgb8> rgb("gigaseg::cli::gray_as_rgb", gray->width(), gray->height());
  for (index_t y = 0; y < rgb.height(); ++y)
    for (index_t x = 0; x < rgb.width(); ++x) {
      std::uint8_t const v = (*gray)(y, x);
      rgb(y, x) = Rgb8{v, v, v};
    }
  return rgb;
}

}  // namespace gigaseg::cli
