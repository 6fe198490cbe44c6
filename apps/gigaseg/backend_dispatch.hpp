#pragma once
// Runs a command's work on the backend the context chooses for the image, with the image on that
// backend's memory: f(space) is instantiated once per compiled-in execution space.
#include "gigaseg/algorithms/convert.hpp"
#include "gigaseg/algorithms/path.hpp"
#include "apps/gigaseg/cli.hpp"
#include "gigaseg/core/error.hpp"
#include "gigaseg/core/io/image_file.hpp"
#include "gigaseg/core/transfer.hpp"

#include <Kokkos_Core.hpp>

namespace gigaseg::cli {

// `family` picks the small-image threshold that applies (core/context.hpp).
template <class F>
void on_backend(Session& session, index_t pixels, OpFamily family, F&& f) {
  Backend const backend = session.context.resolve(pixels, family);
  session.report["backend"] = to_string(backend);
  switch (backend) {
#ifdef KOKKOS_ENABLE_CUDA
    case Backend::cuda: f(session.context.device()); return;
#endif
#ifdef KOKKOS_ENABLE_OPENMP
    case Backend::openmp: f(Kokkos::OpenMP()); return;
#endif
#ifdef KOKKOS_ENABLE_SERIAL
    case Backend::serial: f(Kokkos::Serial()); return;
#endif
    default: break;
  }
  GIGASEG_THROW(ErrorKind::usage, "--backend", std::string(to_string(backend)) + " is not compiled into this gigaseg");
}

// The image in `Space`'s memory: the host image itself for host backends, a copy otherwise.
template <class Space, class T>
ImageView<T, typename Space::memory_space> upload(Space const& space, HostImage<T> const& image) {
  if constexpr (std::is_same<typename Space::memory_space, Kokkos::HostSpace>::value) {
    return image;
  } else {
    return clone<typename Space::memory_space>(space, image, "gigaseg::cli::upload");
  }
}

template <class Space, class T>
HostImage<T> download(Space const& space, ImageView<T, typename Space::memory_space> const& image) {
  if constexpr (std::is_same<typename Space::memory_space, Kokkos::HostSpace>::value) {
    return image;
  } else {
    return clone<Kokkos::HostSpace>(space, image, "gigaseg::cli::download");
  }
}

// Commands that need one 8-bit channel: colour becomes BT.601 gray (OpenCV's COLOR_RGB2GRAY) on the
// backend; other pixel types are an input error naming the file.
template <class Space>
ImageView<std::uint8_t, typename Space::memory_space> gray8_on(Space const& space, AnyHostImage const& image,
                                                               std::string const& path) {
  if (auto const* gray = std::get_if<HostImage<std::uint8_t>>(&image)) return upload(space, *gray);
  if (auto const* rgb = std::get_if<HostImage<Rgb8>>(&image)) {
    auto colour = upload(space, *rgb);
    ImageView<std::uint8_t, typename Space::memory_space> gray("gigaseg::cli::gray", colour.width(), colour.height());
    rgb_to_gray(space, ImageView<Rgb8 const, typename Space::memory_space>(colour), gray);
    return gray;
  }
  GIGASEG_THROW(ErrorKind::input, path,
                std::string("this command needs an 8-bit gray or RGB image, not ") + to_string(pixel_type(image)));
}

// Commands that need 8-bit RGB (k-means): gray becomes R = G = B; other pixel types are an input
// error naming the file and the command.
HostImage<Rgb8> rgb8_of(AnyHostImage const& image, std::string const& path, char const* command);

Path parse_path(std::string const& text);

}  // namespace gigaseg::cli
