#include "gigaseg/algorithms/filters.hpp"

#include "gigaseg/core/error.hpp"

#include <cmath>
#include <sstream>
#include <string>

namespace gigaseg {

int gaussian_ksize(GaussianParams const& params) {
  GIGASEG_REQUIRE(params.sigma > 0 && std::isfinite(params.sigma), ErrorKind::usage, "GaussianParams::sigma",
                  "sigma must be a positive number");
  GIGASEG_REQUIRE(
      params.ksize == 0 || (params.ksize > 0 && params.ksize % 2 == 1 && params.ksize <= 63), ErrorKind::usage,
      "GaussianParams::ksize",
      "the kernel size must be odd, 1..63 (or 0 to derive it from sigma), got " + std::to_string(params.ksize));
  if (params.ksize > 0) return params.ksize;
  // cv::GaussianBlur for 8-bit images: cvRound(sigma * 3 * 2 + 1) | 1.
  // lrint rounds 63.5 up to 64, so 6 sigma + 1 < 63.5 is exactly "the kernel is at most 63 wide".
  if (!(params.sigma * 6.0 + 1.0 < 63.5)) {
    std::ostringstream message;
    message << "sigma " << params.sigma << " needs a kernel wider than 63 (use convolve --method fft)";
    GIGASEG_THROW(ErrorKind::usage, "GaussianParams::sigma", message.str());
  }
  long const k = std::lrint(params.sigma * 6.0 + 1.0) | 1;
  return int(k);
}

std::vector<float> gaussian_weights(int ksize, double sigma) {
  // cv::getGaussianKernel for sigma > 0, then quantised as OpenCV's 8-bit GaussianBlur does: to
  // multiples of 1/256 with error diffusion from the outside in, the centre taking the remainder so
  // that the weights sum to exactly 1. With these weights and 8-bit input every partial sum of the
  // two float passes is a multiple of 2^-16 below 2^8, exact in float, so the result equals
  // OpenCV's fixed-point one.
  std::vector<double> w(static_cast<std::size_t>(ksize));
  double const scale = -0.5 / (sigma * sigma);
  double sum = 0;
  for (int i = 0; i < ksize; ++i) {
    double const x = i - (ksize - 1) * 0.5;
    w[std::size_t(i)] = std::exp(scale * x * x);
    sum += w[std::size_t(i)];
  }
  std::vector<float> out(w.size());
  int const half = ksize / 2;
  double error = 0;
  long total = 0;
  for (int i = 0; i < half; ++i) {
    double const adjusted = w[std::size_t(i)] / sum * 256.0 + error;
    long const q = std::lrint(adjusted);  // cvRound: half to even
    error = adjusted - double(q);
    out[std::size_t(i)] = out[std::size_t(ksize - 1 - i)] = float(q) / 256.0f;
    total += 2 * q;
  }
  out[std::size_t(half)] = float(256 - total) / 256.0f;
  return out;
}

}  // namespace gigaseg
