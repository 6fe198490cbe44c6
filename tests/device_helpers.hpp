#pragma once
// Moving test images to a backend and back, and wrapping host images as OpenCV matrices.
#include "gigaseg/core/image.hpp"
#include "gigaseg/core/transfer.hpp"

#include <opencv2/core.hpp>

namespace gigaseg::test {

template <class Space, class T>
ImageView<T, typename Space::memory_space> to_space(Space const& space, HostImage<T> const& image) {
  return clone<typename Space::memory_space>(space, image, "test::on_backend");
}

template <class Space, class T>
HostImage<T> to_host(Space const& space, ImageView<T, typename Space::memory_space> const& image) {
  return clone<Kokkos::HostSpace>(space, image, "test::on_host");
}

template <class T>
int cv_type();
template <>
inline int cv_type<std::uint8_t>() {
  return CV_8UC1;
}
template <>
inline int cv_type<std::uint16_t>() {
  return CV_16UC1;
}
template <>
inline int cv_type<float>() {
  return CV_32FC1;
}
template <>
inline int cv_type<Rgb8>() {
  return CV_8UC3;
}

// A cv::Mat over the host image's pixels (no copy), honouring its pitch.
template <class T>
cv::Mat as_mat(HostImage<T> const& image) {
  return cv::Mat(int(image.height()), int(image.width()), cv_type<T>(),
                 const_cast<std::remove_const_t<T>*>(image.data()), std::size_t(image.pitch_bytes()));
}

// Host image holding a copy of a cv::Mat of the matching type.
template <class T>
HostImage<T> from_mat(cv::Mat const& mat) {
  HostImage<T> image("test::from_mat", mat.cols, mat.rows);
  for (int y = 0; y < mat.rows; ++y) std::memcpy(image.row(y), mat.ptr(y), std::size_t(mat.cols) * sizeof(T));
  return image;
}

}  // namespace gigaseg::test
