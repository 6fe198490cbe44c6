// Compares two TIFFs pixel by pixel in strips of rows, never holding either whole: the check of
// the tile engine's outputs against the in-memory ones (the two files' layouts, tiles or strips,
// and compression may differ; their pixels must not).
//
//   tiff_equal A.tif B.tif     prints "equal" or the differing pixel count and the first one;
//                              exit status 0 when equal, 1 when not, 2 on a usage or read error
#include "gigaseg/core/io/image_file.hpp"
#include "gigaseg/core/runtime.hpp"

#include <cstdio>
#include <cstring>
#include <exception>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: tiff_equal A.tif B.tif\n");
    return 2;
  }
  try {
    gigaseg::Runtime runtime(gigaseg::RuntimeOptions{});
    gigaseg::ImageShape const a = gigaseg::image_shape(argv[1]), b = gigaseg::image_shape(argv[2]);
    if (a.width != b.width || a.height != b.height) {
      std::printf("differ: %lldx%lld against %lldx%lld\n", (long long)a.width, (long long)a.height, (long long)b.width,
                  (long long)b.height);
      return 1;
    }
    gigaseg::index_t const strip = 256;
    long long differing = 0, first_x = -1, first_y = -1;
    for (gigaseg::index_t y = 0; y < a.height; y += strip) {
      gigaseg::Region const region{0, y, a.width, std::min(strip, a.height - y)};
      gigaseg::AnyHostImage const pa = gigaseg::read_image_region(argv[1], region);
      gigaseg::AnyHostImage const pb = gigaseg::read_image_region(argv[2], region);
      if (pa.index() != pb.index()) {
        std::printf("differ: pixel types %s and %s\n", gigaseg::to_string(gigaseg::pixel_type(pa)),
                    gigaseg::to_string(gigaseg::pixel_type(pb)));
        return 1;
      }
      std::visit(
          [&](auto const& ia) {
            using Image = std::decay_t<decltype(ia)>;
            Image const& ib = std::get<Image>(pb);
            std::size_t const row_bytes = std::size_t(ia.width()) * sizeof(typename Image::value_type);
            for (gigaseg::index_t r = 0; r < ia.height(); ++r) {
              if (std::memcmp(ia.row(r), ib.row(r), row_bytes) == 0) continue;
              for (gigaseg::index_t x = 0; x < ia.width(); ++x)
                if (std::memcmp(&ia(r, x), &ib(r, x), sizeof(typename Image::value_type)) != 0) {
                  if (differing++ == 0) first_x = x, first_y = y + r;
                }
            }
          },
          pa);
    }
    if (differing == 0) {
      std::printf("equal (%lldx%lld)\n", (long long)a.width, (long long)a.height);
      return 0;
    }
    std::printf("differ: %lld pixels, the first at (%lld, %lld)\n", differing, first_x, first_y);
    return 1;
  } catch (std::exception const& e) {
    std::fprintf(stderr, "tiff_equal: %s\n", e.what());
    return 2;
  }
}
