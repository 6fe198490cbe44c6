#pragma once
// Implementation of algorithms/convolve.hpp: the direct pass and the FFT method's padding, product
// and crop, around the backends' transforms (FftAlgorithm); instantiated by
// backends/instantiate/convolve.cpp, which also sees the backends' specialisations.
#include "gigaseg/algorithms/convert.hpp"
#include "gigaseg/algorithms/convolve.hpp"
#include "gigaseg/algorithms/detail/dispatch.hpp"
#include "gigaseg/algorithms/detail/stencil.hpp"
#include "gigaseg/core/error.hpp"
#include "gigaseg/core/translation_unit.hpp"

#include <Kokkos_Complex.hpp>
#include <Kokkos_Core.hpp>

#include <string>

namespace gigaseg::detail {

// One transform on the execution space's FFT (the backend's tuned one; there is no portable FFT).
template <class ExecSpace>
void fft(ExecSpace const& space, FftDirection direction, float* real, FftComplex* spectrum, long ny, long nx) {
  dispatch<FftAlgorithm>(
      space, Path::tuned,
      [] {
        GIGASEG_THROW(ErrorKind::usage, "convolve(method)",
                      "the FFT method has no transform on this backend (use direct)");
      },
      direction, real, spectrum, ny, nx);
}

// Kernels with at least this many taps go to the FFT when the method is automatic (measured: see
// docs/performance.md, "convolution crossover").
template <class ExecSpace>
constexpr int fft_from_taps() {
  return runs_on_host<ExecSpace>() ? 17 * 17 : 27 * 27;
}

template <class ExecSpace>
Kokkos::View<float*, typename ExecSpace::memory_space> upload_weights(ExecSpace const& space,
                                                                      ConvolutionKernel const& kernel) {
  Kokkos::View<float*, typename ExecSpace::memory_space> weights("gigaseg::convolve::weights", kernel.weights.size());
  auto host = Kokkos::create_mirror_view(weights);
  for (std::size_t i = 0; i < kernel.weights.size(); ++i) host(i) = kernel.weights[i];
  Kokkos::deep_copy(space, weights, host);
  space.fence();  // `host` is released on return
  return weights;
}

template <class ExecSpace, class Unit = detail::unit_for<ExecSpace>>
void convolve_direct(ExecSpace const& space, ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& in,
                     ImageView<float, typename ExecSpace::memory_space> const& out, ConvolutionKernel const& kernel) {
  int const kw = kernel.width, kh = kernel.height, ax = kw / 2, ay = kh / 2;
  int const rx = ax > kw - 1 - ax ? ax : kw - 1 - ax, ry = ay > kh - 1 - ay ? ay : kh - 1 - ay;
  auto const weights = upload_weights(space, kernel);
  constexpr bool on_host = runs_on_host<ExecSpace>();
  tiled_stencil<ExecSpace, float>(
      space, "gigaseg::convolve::direct", in, rx, ry, Border::replicate, 0.0f,
      KOKKOS_LAMBDA(ScratchTile<float> const& tile, int ly, int lx0, int lx1, index_t y, index_t x0) {
        float* const row = out.row(y) + x0 - lx0;
        if (on_host) {  // a constant; tap-major so that the loop along the tile row vectorises
          float sum[TileShape<ExecSpace>::width];
          for (int lx = lx0; lx < lx1; ++lx) sum[lx] = 0.0f;
          for (int i = 0; i < kh; ++i)
            for (int j = 0; j < kw; ++j) {
              float const w = weights(i * kw + j);
              float const* src = tile.row(ly + i - ay) + j - ax;
              for (int lx = lx0; lx < lx1; ++lx) sum[lx] += w * src[lx];
            }
          for (int lx = lx0; lx < lx1; ++lx) row[lx] = sum[lx];
        } else {
          for (int lx = lx0; lx < lx1; ++lx) {
            float sum = 0.0f;
            for (int i = 0; i < kh; ++i) {
              float const* src = tile.row(ly + i - ay) + lx - ax;
              for (int j = 0; j < kw; ++j) sum += weights(i * kw + j) * src[j];
            }
            row[lx] = sum;
          }
        }
      });
}

template <class ExecSpace, class Unit = detail::unit_for<ExecSpace>>
void convolve_fft(ExecSpace const& space, ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& in,
                  ImageView<float, typename ExecSpace::memory_space> const& out, ConvolutionKernel const& kernel) {
  using Memory = typename ExecSpace::memory_space;
  using Range2 = Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>, Kokkos::IndexType<long>>;
  long const width = in.width(), height = in.height();
  int const kw = kernel.width, kh = kernel.height, ax = kw / 2, ay = kh / 2;
  long const ny = fft_friendly_size(height + kh - 1), nx = fft_friendly_size(width + kw - 1);
  long const nxc = nx / 2 + 1;
  Kokkos::View<float**, Kokkos::LayoutRight, Memory> image("gigaseg::convolve::padded", ny, nx);
  Kokkos::View<float**, Kokkos::LayoutRight, Memory> taps("gigaseg::convolve::taps", ny, nx);
  Kokkos::View<FftComplex**, Kokkos::LayoutRight, Memory> image_hat("gigaseg::convolve::image_hat", ny, nxc);
  Kokkos::View<FftComplex**, Kokkos::LayoutRight, Memory> taps_hat("gigaseg::convolve::taps_hat", ny, nxc);
  auto const weights = upload_weights(space, kernel);
  // P(py, px) = in(clamp(py - ay), clamp(px - ax)) over the (height + kh - 1) x (width + kw - 1)
  // valid region; zeros beyond it. The flipped kernel sits at the origin.
  Kokkos::parallel_for(
      "gigaseg::convolve::pad", Range2(space, {0, 0}, {ny, nx}), KOKKOS_LAMBDA(long py, long px) {
        float v = 0.0f;
        if (py < height + kh - 1 && px < width + kw - 1)
          v = float(
              in(border_index(py - ay, height, Border::replicate), border_index(px - ax, width, Border::replicate)));
        image(py, px) = v;
        taps(py, px) = py < kh && px < kw ? weights((kh - 1 - py) * kw + (kw - 1 - px)) : 0.0f;
      });
  fft(space, FftDirection::forward, image.data(), image_hat.data(), ny, nx);
  fft(space, FftDirection::forward, taps.data(), taps_hat.data(), ny, nx);
  float const scale = 1.0f / (float(ny) * float(nx));
  Kokkos::parallel_for(
      "gigaseg::convolve::product", Range2(space, {0, 0}, {ny, nxc}),
      KOKKOS_LAMBDA(long i, long j) { image_hat(i, j) = image_hat(i, j) * taps_hat(i, j) * scale; });
  fft(space, FftDirection::inverse, image.data(), image_hat.data(), ny, nx);
  // Circular convolution C(y', x') = sum kf(i, j) P(y' - i, x' - j); the correlation at (y, x) is
  // C(y + kh - 1, x + kw - 1), which never wraps.
  Kokkos::parallel_for(
      "gigaseg::convolve::crop", Range2(space, {0, 0}, {height, width}),
      KOKKOS_LAMBDA(long y, long x) { out(y, x) = image(y + kh - 1, x + kw - 1); });
  space.fence();  // the views above are released on return
}

}  // namespace gigaseg::detail

namespace gigaseg {

template <class ExecSpace>
ConvolveMethod convolve_method(ConvolutionKernel const& kernel, ConvolveMethod requested) {
  if (requested != ConvolveMethod::automatic) return requested;
  return TunedAvailable<FftAlgorithm, ExecSpace>::value &&
                 long(kernel.width) * kernel.height >= detail::fft_from_taps<ExecSpace>()
             ? ConvolveMethod::fft
             : ConvolveMethod::direct;
}

template <class ExecSpace>
void convolve(ExecSpace const& space, ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& in,
              ImageView<float, typename ExecSpace::memory_space> const& out, ConvolutionKernel const& kernel,
              ConvolveMethod method) {
  detail::require_same_size("convolve", in.width(), in.height(), out.width(), out.height());
  GIGASEG_REQUIRE(kernel.width >= 1 && kernel.height >= 1 &&
                      kernel.weights.size() == std::size_t(kernel.width) * std::size_t(kernel.height),
                  ErrorKind::usage, "KERNEL", "the kernel needs width x height weights");
  ConvolveMethod const chosen = convolve_method<ExecSpace>(kernel, method);
  GIGASEG_REQUIRE(chosen != ConvolveMethod::fft || (TunedAvailable<FftAlgorithm, ExecSpace>::value), ErrorKind::usage,
                  "convolve(method)", "no FFT on this backend (use direct)");
  if (in.empty()) return;
  detail::dispatch<ConvolveAlgorithm>(space, Path::automatic, [&] {
    if (chosen == ConvolveMethod::fft)
      detail::convolve_fft(space, in, out, kernel);
    else
      detail::convolve_direct(space, in, out, kernel);
  });
}

}  // namespace gigaseg
