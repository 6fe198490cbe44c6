// libFuzzer target for one image reader, chosen at compile time by GIGASEG_FUZZ_FORMAT (png, tiff,
// pnm or fits; tests/fuzz/CMakeLists.txt builds one binary each). The reader is called directly, not
// through read_image's format detection, so every mutation reaches the reader under test.
//
// What counts as a failure: a crash, a sanitizer report (ASan, UBSan, leaks), a hang, or any
// exception other than gigaseg::Error (a clean input or resource error is the expected answer to
// a corrupt file). The readers' pixel limit is set to 2^24 pixels: a corrupt header can claim any
// size, and a claimed 100000x100000 image would be a legitimate 10 GB allocation, not a bug.
#include "gigaseg/core/error.hpp"
#include "gigaseg/core/io/image_file.hpp"

#include <Kokkos_Core.hpp>

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#ifndef GIGASEG_FUZZ_FORMAT
#error "define GIGASEG_FUZZ_FORMAT as png, tiff, pnm or fits"
#endif

namespace {

std::string& temp_path() {
  static std::string path = [] {
    char const* dir = std::getenv("TMPDIR");
    return std::string(dir && *dir ? dir : "/tmp") + "/gigaseg-fuzz-" + std::to_string(getpid()) + ".img";
  }();
  return path;
}

gigaseg::AnyHostImage read(std::string const& path) {
#define GIGASEG_FUZZ_CALL(format) gigaseg::detail::read_##format(path)
#define GIGASEG_FUZZ_EXPAND(format) GIGASEG_FUZZ_CALL(format)
  return GIGASEG_FUZZ_EXPAND(GIGASEG_FUZZ_FORMAT);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  Kokkos::initialize();  // host images are Kokkos views
  gigaseg::set_read_pixel_limit(gigaseg::index_t(1) << 24);
  // One decoding thread: starting a thread for each strip of an input of a few hundred bytes would
  // be most of the time spent on it (the parallel decode's own logic is in the unit tests).
  gigaseg::set_io_threads(1);
  std::atexit([] { std::remove(temp_path().c_str()); });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
  std::FILE* file = std::fopen(temp_path().c_str(), "wb");
  if (file == nullptr) std::abort();
  if (size > 0 && std::fwrite(data, 1, size, file) != size) std::abort();
  std::fclose(file);
  try {
    gigaseg::AnyHostImage const image = read(temp_path());
    if (gigaseg::width(image) <= 0 || gigaseg::height(image) <= 0) std::abort();  // a read image has pixels
  } catch (gigaseg::Error const&) {
  }
  return 0;
}
