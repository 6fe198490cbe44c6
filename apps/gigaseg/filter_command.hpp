#pragma once
// The shape shared by the image-to-image commands (median, gaussian, sobel, morph, convolve): read
// an image, convert it to 8-bit gray on the backend, compute an output image there, bring it back
// and write it atomically; stages timed, size reported.
#include "apps/gigaseg/backend_dispatch.hpp"

#include <string>
#include <type_traits>
#include <utility>

namespace gigaseg::cli {

// compute(space, in, out) fills `out` (OutT, same size as the image) from the gray image `in`.
template <class OutT, class Compute>
void run_gray8_filter(Session& session, std::string const& input, std::string const& output, OpFamily family,
                      Compute&& compute) {
  ImageFormat const format = format_for_extension(output);  // a bad OUT fails before any work
  if constexpr (std::is_same<OutT, float>::value)
    GIGASEG_REQUIRE(format == ImageFormat::tiff, ErrorKind::usage, output,
                    "this command writes 32-bit float pixels: give a .tif or .tiff output");
  AnyHostImage image;
  {
    StageTimer timer(session, "read");
    image = read_image(input);
  }
  HostImage<OutT> result;
  {
    StageTimer timer(session, "compute");
    on_backend(session, width(image) * height(image), family, [&](auto const& space) {
      using Memory = typename std::decay_t<decltype(space)>::memory_space;
      ImageView<std::uint8_t const, Memory> in = gray8_on(space, image, input);
      ImageView<OutT, Memory> out("gigaseg::cli::filtered", in.width(), in.height());
      compute(space, in, out);
      result = download(space, out);
    });
  }
  {
    StageTimer timer(session, "write");
    write_image(output, result);
  }
  session.report["width"] = width(image);
  session.report["height"] = height(image);
}

}  // namespace gigaseg::cli
