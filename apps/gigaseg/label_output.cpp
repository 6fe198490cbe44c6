#include "apps/gigaseg/label_output.hpp"

#include "gigaseg/core/error.hpp"
#include "gigaseg/core/io/atomic_file.hpp"

#include <cstdio>
#include <limits>
#include <string>

namespace gigaseg::cli {

void check_label_output(std::string const& path) {
  ImageFormat const format = format_for_extension(path);  // throws for an unknown extension
  (void)format;
  AtomicOutput check(path);  // a missing folder fails here, before any work
}

void write_label_image(std::string const& path, HostImage<Label> const& labels, index_t components) {
  if (format_for_extension(path) == ImageFormat::tiff) {
    write_image(path, labels);
    return;
  }
  GIGASEG_REQUIRE(components <= index_t(std::numeric_limits<std::uint16_t>::max()), ErrorKind::input, path,
                  std::to_string(components) + " components do not fit a 16-bit image; write a .tif");
  HostImage<std::uint16_t> narrow("gigaseg::cli::labels16", labels.width(), labels.height());
  for (index_t y = 0; y < labels.height(); ++y)
    for (index_t x = 0; x < labels.width(); ++x) narrow(y, x) = std::uint16_t(labels(y, x));
  write_image(path, narrow);
}

void write_stats_csv(std::string const& path, std::vector<RegionStats> const& regions) {
  std::string csv = "label,area,x0,y0,x1,y1,cx,cy,perimeter,mean_intensity\n";
  csv.reserve(csv.size() + regions.size() * 64);
  char line[256];
  for (auto const& r : regions) {
    std::snprintf(line, sizeof line, "%u,%lld,%lld,%lld,%lld,%lld,%.4f,%.4f,%lld,%.4f\n", r.label, (long long)r.area,
                  (long long)r.x0, (long long)r.y0, (long long)r.x1, (long long)r.y1, r.cx, r.cy,
                  (long long)r.perimeter, r.mean_intensity);
    csv += line;
  }
  write_text_file(path, csv);
}

void write_overlay(std::string const& path, AnyHostImage const& input, HostImage<Label> const& labels) {
  HostImage<Rgb8> overlay("gigaseg::cli::overlay", labels.width(), labels.height());
  if (auto const* rgb = std::get_if<HostImage<Rgb8>>(&input)) {
    for (index_t y = 0; y < labels.height(); ++y)
      for (index_t x = 0; x < labels.width(); ++x) overlay(y, x) = (*rgb)(y, x);
  } else if (auto const* gray = std::get_if<HostImage<std::uint8_t>>(&input)) {
    for (index_t y = 0; y < labels.height(); ++y)
      for (index_t x = 0; x < labels.width(); ++x) {
        std::uint8_t const v = (*gray)(y, x);
        overlay(y, x) = Rgb8{v, v, v};
      }
  } else {
    GIGASEG_THROW(ErrorKind::input, path, "an overlay needs an 8-bit gray or RGB input");
  }
  index_t const w = labels.width(), h = labels.height();
  for (index_t y = 0; y < h; ++y)
    for (index_t x = 0; x < w; ++x) {
      Label const l = labels(y, x);
      if (l == 0) continue;
      bool const boundary = (y == 0 || labels(y - 1, x) != l) || (y + 1 == h || labels(y + 1, x) != l) ||
                            (x == 0 || labels(y, x - 1) != l) || (x + 1 == w || labels(y, x + 1) != l);
      if (!boundary) continue;
      // A saturated colour per label from a hash, so neighbours differ.
      std::uint32_t s = l * 2654435761u;
      s ^= s >> 15;
      std::uint8_t const c[3] = {std::uint8_t(64 + (s & 0xbf)), std::uint8_t(64 + ((s >> 8) & 0xbf)),
                                 std::uint8_t(64 + ((s >> 16) & 0xbf))};
      overlay(y, x) = Rgb8{c[0], c[1], c[2]};
    }
  write_image(path, overlay);
}

}  // namespace gigaseg::cli
