#pragma once
// Zero-copy conversions between a Kokkos::View<T**> indexed (row, column) and an ImageView, for
// codes that already hold their images as Kokkos views.
//
// as_image(view): an ImageView over the view's memory. LayoutRight views and LayoutStride views
// whose columns are adjacent (stride 1 along the second index, e.g. a subview of a LayoutRight
// view) qualify; the row stride becomes the pitch. The image does not own the memory: keep the
// view alive for as long as the image is used.
//
// as_view(image): an unmanaged Kokkos::View<T**, LayoutStride> over the image's pixels (a roi
// included), with the pitch as the row stride. The pitch must be a whole number of pixels, which
// holds for every image of 1-, 2-, 4- or 8-byte pixels; 3-byte RGB images padded to 128-byte rows
// are refused. The view does not own the memory either.
#include "gigaseg/core/error.hpp"
#include "gigaseg/core/image.hpp"

#include <Kokkos_Core.hpp>

#include <string>
#include <type_traits>

namespace gigaseg {

template <class T, class... Properties>
ImageView<T, typename Kokkos::View<T**, Properties...>::memory_space> as_image(
    Kokkos::View<T**, Properties...> const& view) {
  using View = Kokkos::View<T**, Properties...>;
  using Layout = typename View::array_layout;
  static_assert(std::is_same<Layout, Kokkos::LayoutRight>::value || std::is_same<Layout, Kokkos::LayoutStride>::value,
                "as_image takes LayoutRight or LayoutStride views indexed (row, column)");
  index_t const height = index_t(view.extent(0)), width = index_t(view.extent(1));
  GIGASEG_REQUIRE(width <= 1 || height == 0 || view.stride(1) == 1, ErrorKind::usage, "as_image",
                  "the view's columns are " + std::to_string(view.stride(1)) +
                      " elements apart; an image needs adjacent pixels in a row (stride 1)");
  index_t const row_stride = height <= 1 ? width : index_t(view.stride(0));
  return ImageView<T, typename View::memory_space>::wrap(view.data(), width, height, row_stride * index_t(sizeof(T)));
}

template <class T, class MemorySpace>
Kokkos::View<T**, Kokkos::LayoutStride, MemorySpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> as_view(
    ImageView<T, MemorySpace> const& image) {
  GIGASEG_REQUIRE(image.pitch_bytes() % index_t(sizeof(T)) == 0, ErrorKind::usage, "as_view",
                  "the pitch of " + std::to_string(image.pitch_bytes()) + " bytes is not a whole number of " +
                      std::to_string(sizeof(T)) + "-byte pixels");
  Kokkos::LayoutStride const layout(std::size_t(image.height()), std::size_t(image.pitch_bytes()) / sizeof(T),
                                    std::size_t(image.width()), 1);
  return Kokkos::View<T**, Kokkos::LayoutStride, MemorySpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
      image.empty() ? nullptr : image.data(), layout);
}

}  // namespace gigaseg
