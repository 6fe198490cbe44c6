// The non-template part of on_backend.hpp.
#include "gigaseg/engine/on_backend.hpp"

namespace gigaseg {

HostImage<Rgb8> rgb8_of(AnyHostImage const& image, std::string const& name, char const* user) {
  if (auto const* colour = std::get_if<HostImage<Rgb8>>(&image)) return *colour;
  auto const* gray = std::get_if<HostImage<std::uint8_t>>(&image);
  GIGASEG_REQUIRE(gray, ErrorKind::input, name,
                  std::string(user) + " needs an 8-bit RGB or gray image, not " + to_string(pixel_type(image)));
  HostImage<Rgb8> rgb("gigaseg::gray_as_rgb", gray->width(), gray->height());
  for (index_t y = 0; y < rgb.height(); ++y)
    for (index_t x = 0; x < rgb.width(); ++x) {
      std::uint8_t const v = (*gray)(y, x);
      rgb(y, x) = Rgb8{v, v, v};
    }
  return rgb;
}

}  // namespace gigaseg
