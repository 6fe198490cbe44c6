// Writes a synthetic Aperio SVS (tests/slide_writer.hpp), for the whole-slide measurements and the
// command-line tests.
//
//   make_slide OUT.svs WIDTH HEIGHT [--tile N] [--downsamples A,B,...] [--mpp X] [--quality Q] [--no-jpeg]
#include "tests/slide_writer.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr,
                 "usage: make_slide OUT.svs WIDTH HEIGHT [--tile N] [--downsamples A,B] [--mpp X] [--quality Q] "
                 "[--no-jpeg]\n");
    return 2;
  }
  gigaseg::test::SlideSpec spec;
  spec.width = std::atoll(argv[2]);
  spec.height = std::atoll(argv[3]);
  for (int i = 4; i < argc; ++i) {
    std::string const a = argv[i];
    if (a == "--no-jpeg") {
      spec.jpeg = false;
      continue;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "make_slide: %s needs a value\n", a.c_str());
      return 2;
    }
    std::string const v = argv[++i];
    if (a == "--tile")
      spec.tile = std::atoi(v.c_str());
    else if (a == "--mpp")
      spec.mpp = std::atof(v.c_str());
    else if (a == "--quality")
      spec.quality = std::atoi(v.c_str());
    else if (a == "--downsamples") {
      spec.downsamples.clear();
      for (std::size_t at = 0; at <= v.size();) {
        std::size_t const comma = std::min(v.find(',', at), v.size());
        if (comma > at) spec.downsamples.push_back(std::atoi(v.substr(at, comma - at).c_str()));
        at = comma + 1;
      }
    } else {
      std::fprintf(stderr, "make_slide: unknown option %s\n", a.c_str());
      return 2;
    }
  }
  try {
    gigaseg::test::write_svs(argv[1], spec);
  } catch (std::exception const& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
