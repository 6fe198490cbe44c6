// Times gigaseg's region reads of a whole-slide image (read_image_region through OpenSlide), for
// perf/slide_read.py, which runs openslide-python's read_region on the same regions beside it.
//
//   slide_read SLIDE LEVEL X Y WIDTH HEIGHT RUNS [THREADS]
//
// Prints one JSON line: the seconds of each run (the slide is opened, and its first region read,
// before the runs, as openslide-python's OpenSlide object is), and the pixels' checksum.
#include "gigaseg/core/io/image_file.hpp"
#include "gigaseg/core/runtime.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

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
  (void)gigaseg::read_image_region(path, gigaseg::Region{region.x, region.y, 1, 1});  // opens the slide
  std::printf("{\"seconds\": [");
  unsigned long long checksum = 0;
  for (int r = 0; r < runs; ++r) {
    auto const start = std::chrono::steady_clock::now();
    gigaseg::AnyHostImage const image = gigaseg::read_image_region(path, region);
    double const seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("%s%.6f", r == 0 ? "" : ", ", seconds);
    if (r == 0) {
      auto const& rgb = std::get<gigaseg::HostImage<gigaseg::Rgb8>>(image);
      for (index_t y = 0; y < rgb.height(); ++y)
        for (index_t x = 0; x < rgb.width(); ++x) checksum += rgb(y, x).r + 3u * rgb(y, x).g + 7u * rgb(y, x).b;
    }
  }
  std::printf("], \"checksum\": %llu}\n", checksum);
  return 0;
}
