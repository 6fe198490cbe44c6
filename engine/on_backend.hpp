#pragma once
// Running work on the backend an ExecutionContext chooses for an image, with the image in that
// backend's memory: on_backend instantiates f(space) once per compiled-in execution space and
// calls the one the context picks; upload, download, gray8_on and rgb8_of move host images there
// and back (no copy where the backend runs on the host).
#include "gigaseg/algorithms/convert.hpp"
#include "gigaseg/core/context.hpp"
#include "gigaseg/core/error.hpp"
#include "gigaseg/core/io/image_file.hpp"
#include "gigaseg/core/transfer.hpp"

#include <Kokkos_Core.hpp>

#include <string>
#include <type_traits>
#include <utility>

namespace gigaseg {

// Calls f(space) on the backend `context` resolves for `pixels` of work in `family` (the device
// instance of the context for CUDA) and returns that backend. Throws Error(usage) about
// "ContextOptions::backend" when the backend is not compiled in.
template <class F>
Backend on_backend(ExecutionContext const& context, index_t pixels, OpFamily family, F&& f) {
  Backend const backend = context.resolve(pixels, family);
  switch (backend) {
#ifdef KOKKOS_ENABLE_CUDA
    case Backend::cuda: std::forward<F>(f)(context.device()); return backend;
#endif
#ifdef KOKKOS_ENABLE_OPENMP
    case Backend::openmp: std::forward<F>(f)(Kokkos::OpenMP()); return backend;
#endif
#ifdef KOKKOS_ENABLE_SERIAL
    case Backend::serial: std::forward<F>(f)(Kokkos::Serial()); return backend;
#endif
    default: break;
  }
  GIGASEG_THROW(ErrorKind::usage, "ContextOptions::backend",
                std::string(to_string(backend)) + " is not compiled into this gigaseg");
}

// The image in `Space`'s memory: the host image itself for host backends, a copy otherwise.
template <class Space, class T>
ImageView<T, typename Space::memory_space> upload(Space const& space, HostImage<T> const& image) {
  if constexpr (std::is_same<typename Space::memory_space, Kokkos::HostSpace>::value) {
    return image;
  } else {
    return clone<typename Space::memory_space>(space, image, "gigaseg::upload");
  }
}

template <class Space, class T>
HostImage<T> download(Space const& space, ImageView<T, typename Space::memory_space> const& image) {
  if constexpr (std::is_same<typename Space::memory_space, Kokkos::HostSpace>::value) {
    return image;
  } else {
    return clone<Kokkos::HostSpace>(space, image, "gigaseg::download");
  }
}

// One 8-bit channel on the backend: colour becomes BT.601 gray (OpenCV's COLOR_RGB2GRAY) there;
// other pixel types are an input error naming `name` (the image's file).
template <class Space>
ImageView<std::uint8_t, typename Space::memory_space> gray8_on(Space const& space, AnyHostImage const& image,
                                                               std::string const& name) {
  if (auto const* gray = std::get_if<HostImage<std::uint8_t>>(&image)) return upload(space, *gray);
  if (auto const* rgb = std::get_if<HostImage<Rgb8>>(&image)) {
    auto colour = upload(space, *rgb);
    ImageView<std::uint8_t, typename Space::memory_space> gray("gigaseg::gray", colour.width(), colour.height());
    rgb_to_gray(space, ImageView<Rgb8 const, typename Space::memory_space>(colour), gray);
    return gray;
  }
  GIGASEG_THROW(ErrorKind::input, name,
                std::string("needs an 8-bit gray or RGB image, not ") + to_string(pixel_type(image)));
}

// 8-bit RGB on the host (k-means): gray becomes R = G = B; other pixel types are an input error
// naming `name` (the image's file) and `user` (what needs RGB).
HostImage<Rgb8> rgb8_of(AnyHostImage const& image, std::string const& name, char const* user);

}  // namespace gigaseg
