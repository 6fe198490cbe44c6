#include "gigaseg/algorithms/convolve.hpp"

#include "gigaseg/core/error.hpp"

#include <fftw3.h>

#include <cmath>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace gigaseg {

ConvolutionKernel read_kernel_text(std::string const& path) {
  std::ifstream file(path);
  GIGASEG_REQUIRE(file.good(), ErrorKind::input, path, "cannot open the kernel file");
  ConvolutionKernel kernel;
  std::string line;
  int line_number = 0;
  while (std::getline(file, line)) {
    ++line_number;
    for (char& c : line)
      if (c == ',' || c == '\t' || c == '\r') c = ' ';
    std::size_t const first = line.find_first_not_of(' ');
    if (first == std::string::npos || line[first] == '#') continue;
    std::istringstream numbers(line);
    std::vector<float> row;
    std::string token;
    while (numbers >> token) {
      char* end = nullptr;
      float const v = std::strtof(token.c_str(), &end);
      GIGASEG_REQUIRE(end && *end == '\0' && std::isfinite(v), ErrorKind::input, path,
                      "line " + std::to_string(line_number) + ": '" + token + "' is not a finite number");
      row.push_back(v);
    }
    GIGASEG_REQUIRE(kernel.height == 0 || int(row.size()) == kernel.width, ErrorKind::input, path,
                    "line " + std::to_string(line_number) + " has " + std::to_string(row.size()) +
                        " numbers, the first row " + std::to_string(kernel.width));
    kernel.width = int(row.size());
    ++kernel.height;
    kernel.weights.insert(kernel.weights.end(), row.begin(), row.end());
  }
  GIGASEG_REQUIRE(kernel.height > 0, ErrorKind::input, path, "the kernel file has no rows");
  GIGASEG_REQUIRE(kernel.width <= 4096 && kernel.height <= 4096, ErrorKind::input, path,
                  "kernel larger than 4096x4096");
  return kernel;
}

long fft_friendly_size(long n) {
  for (long m = n < 1 ? 1 : n;; ++m) {
    long r = m;
    for (long p : {2, 3, 5, 7})
      while (r % p == 0) r /= p;
    if (r == 1) return m;
  }
}

}  // namespace gigaseg
