#pragma once
// ImageView: a 2-D image in a Kokkos memory space, stored with a row pitch.
//
// Layout: rows are padded so that each begins on a 128-byte boundary (the GPU's
// memory-transaction size: an unaligned row start costs an extra transaction per warp access).
// The pitch is in bytes, as with cudaMallocPitch, so that 3-byte RGB pixels fit the same rule.
// A region of interest (roi) is a view into its parent's storage and keeps the parent's pitch;
// it never copies.
//
// Every size and offset is 64-bit: a 50000 x 45000 image has 2.25e9 pixels, past 2^31.
#include "gigaseg/core/error.hpp"
#include "gigaseg/core/pixel.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <limits>
#include <new>
#include <string>
#include <type_traits>

namespace gigaseg {

using index_t = std::int64_t;  // pixel counts, coordinates and linear indices

// The pitch (bytes between row starts) gigaseg allocates for a row of `width` pixels of `bytes`.
constexpr index_t row_alignment_bytes = 128;
constexpr index_t aligned_pitch(index_t width, index_t bytes_per_pixel) noexcept {
  index_t const row = width * bytes_per_pixel;
  return (row + row_alignment_bytes - 1) / row_alignment_bytes * row_alignment_bytes;
}

template <class T, class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class ImageView {
  static_assert(std::is_trivially_copyable<T>::value, "pixels must be trivially copyable");

 public:
  using value_type = T;
  using non_const_value_type = std::remove_const_t<T>;
  using memory_space = MemorySpace;
  // The bytes behind the image. Reference-counted: rois and copies of the view keep it alive.
  using storage_type = Kokkos::View<unsigned char*, MemorySpace>;

  ImageView() = default;

  // Allocates a width x height image with 128-byte-aligned rows. Contents are uninitialised:
  // the kernel that fills it writes every pixel. Throws Error(resource) when memory runs out.
  ImageView(std::string const& label, index_t width, index_t height) {
    static_assert(!std::is_const<T>::value, "allocate a non-const image, then view it as const");
    GIGASEG_REQUIRE(width >= 0 && height >= 0, ErrorKind::usage, label,
                    "negative image size " + std::to_string(width) + "x" + std::to_string(height));
    index_t const pitch = aligned_pitch(width, index_t(sizeof(T)));
    GIGASEG_REQUIRE(height == 0 || pitch <= (std::numeric_limits<index_t>::max() - row_alignment_bytes) / height,
                    ErrorKind::resource, label,
                    "image of " + std::to_string(width) + "x" + std::to_string(height) +
                        " pixels does not fit in a 64-bit address space");
    // Slack of one alignment unit so that the first row can start on a 128-byte boundary in
    // spaces that allocate with less alignment (Kokkos's HostSpace aligns to 64 bytes).
    index_t const bytes = pitch * height + row_alignment_bytes;
    try {
      storage_ = storage_type(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), static_cast<std::size_t>(bytes));
    } catch (std::bad_alloc const&) {
      throw_out_of_memory(label, bytes);
    } catch (std::runtime_error const&) {  // Kokkos 3.x reports some failures this way
      throw_out_of_memory(label, bytes);
    }
    auto const address = reinterpret_cast<std::uintptr_t>(storage_.data());
    offset_ = index_t((row_alignment_bytes - address % row_alignment_bytes) % row_alignment_bytes);
    width_ = width;
    height_ = height;
    pitch_ = pitch;
    padded_rows_ = true;
  }

  // A view over memory the caller owns (e.g. a buffer from another library). No ownership is
  // taken; pitch_bytes must be at least width * sizeof(T).
  static ImageView wrap(T* data, index_t width, index_t height, index_t pitch_bytes) {
    GIGASEG_REQUIRE(
        width >= 0 && height >= 0 && pitch_bytes >= width * index_t(sizeof(T)), ErrorKind::usage, "ImageView::wrap",
        "pitch " + std::to_string(pitch_bytes) + " is smaller than a row of " + std::to_string(width) + " pixels");
    ImageView view;
    auto* bytes = reinterpret_cast<unsigned char*>(const_cast<non_const_value_type*>(data));
    view.storage_ = storage_type(bytes, static_cast<std::size_t>(pitch_bytes * height));
    view.width_ = width;
    view.height_ = height;
    view.pitch_ = pitch_bytes;
    view.padded_rows_ = true;
    return view;
  }

  // Implicit view as const pixels.
  template <class U, class = std::enable_if_t<std::is_same<T, U const>::value>>
  ImageView(ImageView<U, MemorySpace> const& other)  // NOLINT(google-explicit-constructor)
      : storage_(other.storage()),
        offset_(other.offset_bytes()),
        width_(other.width()),
        height_(other.height()),
        pitch_(other.pitch_bytes()),
        padded_rows_(other.has_padding_only_gaps()) {}

  KOKKOS_INLINE_FUNCTION index_t width() const noexcept { return width_; }
  KOKKOS_INLINE_FUNCTION index_t height() const noexcept { return height_; }
  KOKKOS_INLINE_FUNCTION index_t pixel_count() const noexcept { return width_ * height_; }
  KOKKOS_INLINE_FUNCTION index_t pitch_bytes() const noexcept { return pitch_; }
  KOKKOS_INLINE_FUNCTION index_t offset_bytes() const noexcept { return offset_; }
  KOKKOS_INLINE_FUNCTION bool empty() const noexcept { return width_ == 0 || height_ == 0; }
  // Rows stored back to back with no gap at all.
  KOKKOS_INLINE_FUNCTION bool contiguous() const noexcept { return pitch_ == width_ * index_t(sizeof(T)); }
  // True when the bytes between the end of one row and the start of the next belong to no
  // pixel (an allocated image); false for a roi, whose gaps are its parent's pixels. Transfers use
  // this to copy the whole span in one go.
  bool has_padding_only_gaps() const noexcept { return padded_rows_; }

  KOKKOS_INLINE_FUNCTION T* row(index_t y) const noexcept {
    return reinterpret_cast<T*>(storage_.data() + offset_ + y * pitch_);
  }
  KOKKOS_INLINE_FUNCTION T& operator()(index_t y, index_t x) const noexcept { return row(y)[x]; }
  KOKKOS_INLINE_FUNCTION T* data() const noexcept { return row(0); }

  // The x0..x0+w-1, y0..y0+h-1 region of this image, sharing its storage and pitch.
  ImageView roi(index_t x0, index_t y0, index_t w, index_t h) const {
    GIGASEG_REQUIRE(
        x0 >= 0 && y0 >= 0 && w >= 0 && h >= 0 && x0 + w <= width_ && y0 + h <= height_, ErrorKind::usage, "roi",
        "region " + std::to_string(w) + "x" + std::to_string(h) + "+" + std::to_string(x0) + "+" + std::to_string(y0) +
            " is outside the " + std::to_string(width_) + "x" + std::to_string(height_) + " image");
    ImageView sub = *this;
    sub.offset_ = offset_ + y0 * pitch_ + x0 * index_t(sizeof(T));
    sub.width_ = w;
    sub.height_ = h;
    sub.padded_rows_ = padded_rows_ && x0 == 0 && w == width_;
    return sub;
  }

  storage_type const& storage() const noexcept { return storage_; }
  std::string label() const { return storage_.label(); }

 private:
  template <class, class>
  friend class ImageView;
  template <class U, class DstSpace, class SrcSpace>
  friend ImageView<U, DstSpace> make_mirror_layout(std::string const&, ImageView<U const, SrcSpace> const&);

  // One line: Kokkos's own report of the failure spans several.
  [[noreturn]] static void throw_out_of_memory(std::string const& label, index_t bytes) {
    throw OutOfMemory(label, std::size_t(bytes), MemorySpace::name(), __FILE__, __LINE__);
  }

  storage_type storage_;
  index_t offset_ = 0;
  index_t width_ = 0;
  index_t height_ = 0;
  index_t pitch_ = 0;
  bool padded_rows_ = true;
};

// An image in `DstSpace` whose bytes are laid out exactly as `like`'s (same pitch, same offset of
// the first pixel), so that one contiguous copy moves it. Used to stage transfers.
template <class T, class DstSpace, class SrcSpace>
ImageView<T, DstSpace> make_mirror_layout(std::string const& label, ImageView<T const, SrcSpace> const& like) {
  ImageView<T, DstSpace> mirror;
  index_t const span =
      like.height() == 0 ? 0 : (like.height() - 1) * like.pitch_bytes() + like.width() * index_t(sizeof(T));
  try {
    mirror.storage_ = typename ImageView<T, DstSpace>::storage_type(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, label), static_cast<std::size_t>(span));
  } catch (std::exception const&) {
    ImageView<T, DstSpace>::throw_out_of_memory(label, span);
  }
  mirror.offset_ = 0;
  mirror.width_ = like.width();
  mirror.height_ = like.height();
  mirror.pitch_ = like.pitch_bytes();
  mirror.padded_rows_ = false;  // its gaps hold whatever the source's gaps held
  return mirror;
}

// For the overloads that let an algorithm taking ImageView<T const> also take an ImageView<T>
// (a deduced T cannot see through the conversion): enabled for non-const T only.
template <class T>
using if_mutable = std::enable_if_t<!std::is_const<T>::value, int>;

// Host images: what file readers produce and writers consume.
template <class T>
using HostImage = ImageView<T, Kokkos::HostSpace>;

}  // namespace gigaseg
