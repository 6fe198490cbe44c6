// Times gigaseg's region reads of a whole-slide image (read_image_region through OpenSlide), for
// perf/slide_read.py, which runs openslide-python's read_region on the same regions beside it.
//
//   slide_read SLIDE LEVEL X Y WIDTH HEIGHT RUNS [THREADS [STEP]]
//
// With STEP, run k reads the region moved right by k x STEP pixels (distinct regions one after
// the other in one process, as the tile engine reads them); without it, the same region each run.
// Prints one JSON line: the seconds of each run (the slide is opened, and its first region read,
// before the runs, as openslide-python's OpenSlide object is), the pixels' checksum, and the
// seconds of OpenSlide's own openslide_read_region on the same region, on a handle opened afresh
// (its first pixel read first), for the part of a read that is OpenSlide's.
#include "gigaseg/core/io/image_file.hpp"
#include "gigaseg/core/runtime.hpp"

#include <openslide.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 8) {
    std::fprintf(stderr, "usage: slide_read SLIDE LEVEL X Y WIDTH HEIGHT RUNS [THREADS]\n");
    return 2;
  }
  using gigaseg::index_t;
  gigaseg::Runtime runtime(gigaseg::RuntimeOptions{});
  std::string const path = argv[1];
  gigaseg::set_default_read_options(gigaseg::ReadOptions{std::atoi(argv[2]), 0});
  gigaseg::Region const region{std::atoll(argv[3]), std::atoll(argv[4]), std::atoll(argv[5]), std::atoll(argv[6])};
  int const runs = std::atoi(argv[7]);
  if (argc > 8) gigaseg::set_io_threads(std::atoi(argv[8]));
  index_t const step = argc > 9 ? std::atoll(argv[9]) : 0;
  (void)gigaseg::read_image_region(path, gigaseg::Region{region.x, region.y, 1, 1});  // opens the slide
  std::printf("{\"seconds\": [");
  unsigned long long checksum = 0;
  for (int r = 0; r < runs; ++r) {
    auto const start = std::chrono::steady_clock::now();
    gigaseg::Region const at{region.x + r * step, region.y, region.width, region.height};
    gigaseg::AnyHostImage const image = gigaseg::read_image_region(path, at);
    double const seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("%s%.6f", r == 0 ? "" : ", ", seconds);
    if (r == 0) {
      auto const& rgb = std::get<gigaseg::HostImage<gigaseg::Rgb8>>(image);
      for (index_t y = 0; y < rgb.height(); ++y)
        for (index_t x = 0; x < rgb.width(); ++x) checksum += rgb(y, x).r + 3u * rgb(y, x).g + 7u * rgb(y, x).b;
    }
  }
  std::printf("], \"checksum\": %llu", checksum);
  openslide_t* raw = openslide_open(path.c_str());
  if (raw != nullptr) {
    double const downsample = openslide_get_level_downsample(raw, std::atoi(argv[2]));
    std::int64_t const x0 = std::llround(double(region.x) * downsample),
                       y0 = std::llround(double(region.y) * downsample);
    std::vector<std::uint32_t> pixel(1), argb(std::size_t(region.width * region.height));
    openslide_read_region(raw, pixel.data(), x0, y0, std::atoi(argv[2]), 1, 1);
    auto const start = std::chrono::steady_clock::now();
    openslide_read_region(raw, argb.data(), x0, y0, std::atoi(argv[2]), region.width, region.height);
    std::printf(", \"openslide_c_seconds\": %.6f",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    openslide_close(raw);
  }
  std::printf("}\n");
  return 0;
}
