// ImageView: pitch and roi arithmetic, 64-bit indexing, allocation failure, and kernels writing
// through pitched views on every backend.
#include "gigaseg/core/image.hpp"
#include "gigaseg/core/transfer.hpp"
#include "tests/backends.hpp"

#include <gtest/gtest.h>

#include <cstdint>

namespace gigaseg {
namespace {

TEST(ImageLayout, PitchIsAlignedAndTight) {
  for (index_t width = 1; width <= 700; ++width)
    for (index_t bytes : {1, 2, 3, 4}) {
      index_t const pitch = aligned_pitch(width, bytes);
      EXPECT_EQ(pitch % 128, 0) << width << "x" << bytes;
      EXPECT_GE(pitch, width * bytes);
      EXPECT_LT(pitch, width * bytes + 128);
    }
}

TEST(ImageLayout, HostRowsStartOn128Bytes) {
  for (index_t width : {1, 3, 127, 128, 129, 1000}) {
    HostImage<Rgb8> image("rgb", width, 5);
    for (index_t y = 0; y < image.height(); ++y)
      EXPECT_EQ(reinterpret_cast<std::uintptr_t>(image.row(y)) % 128, 0u) << width << " row " << y;
    EXPECT_TRUE(image.has_padding_only_gaps());
  }
}

TEST(ImageLayout, RoiSharesStorageAndPitch) {
  HostImage<std::uint16_t> parent("parent", 37, 23);
  for (index_t y = 0; y < 23; ++y)
    for (index_t x = 0; x < 37; ++x) parent(y, x) = std::uint16_t(y * 1000 + x);
  auto roi = parent.roi(5, 7, 11, 13);
  EXPECT_EQ(roi.width(), 11);
  EXPECT_EQ(roi.height(), 13);
  EXPECT_EQ(roi.pitch_bytes(), parent.pitch_bytes());
  EXPECT_FALSE(roi.has_padding_only_gaps());
  for (index_t y = 0; y < 13; ++y)
    for (index_t x = 0; x < 11; ++x) {
      EXPECT_EQ(&roi(y, x), &parent(y + 7, x + 5));
      EXPECT_EQ(roi(y, x), (y + 7) * 1000 + x + 5);
    }
  auto inner = roi.roi(2, 3, 4, 5);  // a roi of a roi
  EXPECT_EQ(&inner(0, 0), &parent(10, 7));
  EXPECT_EQ(&inner(4, 3), &parent(14, 10));
  auto band = parent.roi(0, 4, 37, 3);  // full-width bands keep padding-only gaps
  EXPECT_TRUE(band.has_padding_only_gaps());
  roi(0, 0) = 7;
  EXPECT_EQ(parent(7, 5), 7);
}

TEST(ImageLayout, RoiOutsideTheImageIsAUsageError) {
  HostImage<std::uint8_t> image("small", 10, 10);
  EXPECT_THROW(image.roi(5, 5, 6, 1), Error);
  EXPECT_THROW(image.roi(-1, 0, 1, 1), Error);
  EXPECT_THROW(image.roi(0, 9, 1, 2), Error);
  try {
    image.roi(0, 0, 11, 1);
    FAIL() << "no throw";
  } catch (Error const& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_NE(std::string(e.what()).find("outside the 10x10 image"), std::string::npos) << e.what();
  }
}

TEST(ImageLayout, IndexingPast2To31Pixels) {
  // 50000 x 45000 pixels of 4 bytes: 9 GB, never touched; only the address arithmetic is tested.
  index_t const width = 50000, height = 45000;
  index_t const pitch = aligned_pitch(width, 4);
  static std::uint32_t anchor;
  auto image = ImageView<std::uint32_t, Kokkos::HostSpace>::wrap(&anchor, width, height, pitch);
  EXPECT_EQ(image.pixel_count(), index_t(2250000000));
  auto const* first = reinterpret_cast<unsigned char const*>(image.row(0));
  auto const* last = reinterpret_cast<unsigned char const*>(&image(height - 1, width - 1));
  EXPECT_EQ(last - first, (height - 1) * pitch + (width - 1) * 4);
  EXPECT_GT(last - first, index_t(1) << 33);
  auto roi = image.roi(width - 2, height - 2, 2, 2);
  EXPECT_EQ(reinterpret_cast<unsigned char const*>(&roi(1, 1)), last);
}

TEST(ImageLayout, WrapRejectsShortPitch) {
  std::uint8_t buffer[64];
  EXPECT_THROW((ImageView<std::uint8_t, Kokkos::HostSpace>::wrap(buffer, 10, 2, 9)), Error);
}

TEST(ImageLayout, ConstViewSeesTheSamePixels) {
  HostImage<float> image("f", 3, 2);
  image(1, 2) = 4.5f;
  HostImage<float const> view = image;
  EXPECT_EQ(view(1, 2), 4.5f);
  EXPECT_EQ(view.pitch_bytes(), image.pitch_bytes());
}

template <class ExecSpace>
class ImageOnBackend : public ::testing::Test {};
GIGASEG_BACKEND_TEST_SUITE(ImageOnBackend);

// Writes f(x, y) through the pitched view on the backend, and the row-start alignment of each
// row into `misaligned` (a count).
template <class ExecSpace, class T>
index_t fill_pattern(ExecSpace const& space, ImageView<T, typename ExecSpace::memory_space> const& image) {
  index_t misaligned = 0;
  Kokkos::parallel_reduce(
      "test::fill_pattern",
      Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>, Kokkos::IndexType<index_t>>(
          space, {0, 0}, {image.height(), image.width()}),
      KOKKOS_LAMBDA(index_t y, index_t x, index_t & bad) {
        image(y, x) = T(y * 131 + x * 7);
        if (x == 0 && reinterpret_cast<std::uintptr_t>(image.row(y)) % row_alignment_bytes != 0) ++bad;
      },
      misaligned);
  return misaligned;
}

TYPED_TEST(ImageOnBackend, KernelsWriteThroughThePitch) {
  using Space = TypeParam;
  for (auto size : {std::pair<index_t, index_t>{1, 1}, {1, 257}, {257, 1}, {129, 67}, {1000, 3}}) {
    ImageView<std::uint16_t, typename Space::memory_space> image("pattern", size.first, size.second);
    EXPECT_EQ(fill_pattern(Space(), image), 0) << "row starts not 128-byte aligned";
    auto host = clone<Kokkos::HostSpace>(Space(), image, "host");
    for (index_t y = 0; y < host.height(); ++y)
      for (index_t x = 0; x < host.width(); ++x)
        ASSERT_EQ(host(y, x), std::uint16_t(y * 131 + x * 7)) << x << "," << y;
  }
}

TYPED_TEST(ImageOnBackend, KernelsOnARoiLeaveTheRestAlone) {
  using Space = TypeParam;
  using Memory = typename Space::memory_space;
  ImageView<std::uint32_t, Memory> parent("parent", 70, 40);
  Kokkos::deep_copy(Space(), parent.storage(), 0xAB);  // every byte 0xAB
  auto roi = parent.roi(3, 5, 61, 29);
  fill_pattern(Space(), roi);
  auto host = clone<Kokkos::HostSpace>(Space(), parent, "host");
  for (index_t y = 0; y < 40; ++y)
    for (index_t x = 0; x < 70; ++x) {
      bool const inside = x >= 3 && x < 64 && y >= 5 && y < 34;
      std::uint32_t const expected = inside ? std::uint32_t((y - 5) * 131 + (x - 3) * 7) : 0xABABABABu;
      ASSERT_EQ(host(y, x), expected) << x << "," << y;
    }
}

TYPED_TEST(ImageOnBackend, HugeAllocationIsAResourceError) {
  using Memory = typename TypeParam::memory_space;
  try {
    ImageView<std::uint8_t, Memory> image("test::huge", index_t(1) << 40, index_t(1) << 20);
    FAIL() << "allocated 2^60 bytes";
  } catch (Error const& e) {
    EXPECT_EQ(e.kind(), ErrorKind::resource);
    EXPECT_NE(std::string(e.what()).find("test::huge"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("out of memory"), std::string::npos) << e.what();
  }
  // Past 64-bit byte counts the size check itself fires.
  EXPECT_THROW((ImageView<std::uint8_t, Memory>("test::overflow", index_t(1) << 40, index_t(1) << 40)), Error);
}

}  // namespace
}  // namespace gigaseg
