// ImageView: pitch and roi arithmetic, 64-bit indexing, allocation failure, and kernels writing
// through pitched views on every backend.
#include "gigaseg/algorithms/convert.hpp"
#include "gigaseg/algorithms/filters.hpp"
#include "gigaseg/algorithms/histogram.hpp"
#include "gigaseg/algorithms/label.hpp"
#include "gigaseg/algorithms/otsu.hpp"
#include "gigaseg/algorithms/region_stats.hpp"
#include "gigaseg/algorithms/threshold.hpp"
#include "gigaseg/algorithms/watershed.hpp"
#include "gigaseg/core/image.hpp"
#include "gigaseg/core/kokkos_view.hpp"
#include "gigaseg/core/touched_image.hpp"
#include "gigaseg/core/transfer.hpp"
#include "tests/backends.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

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

// A TouchedImage's pages are all in memory when it is taken (mincore), and it is an ordinary image
// of its size; an empty one starts no thread.
TEST(ImageLayout, ATouchedImageIsInMemoryWhenTaken) {
  TouchedImage<std::uint32_t> ahead("touched", 3000, 2000);
  HostImage<std::uint32_t> const image = ahead.take();
  ASSERT_EQ(image.width(), 3000);
  ASSERT_EQ(image.height(), 2000);
  std::size_t const page = std::size_t(::sysconf(_SC_PAGESIZE));
  auto const start = reinterpret_cast<std::uintptr_t>(image.row(0)) / page * page;
  auto const end = reinterpret_cast<std::uintptr_t>(image.row(image.height() - 1) + image.width());
  std::vector<unsigned char> resident((end - start + page - 1) / page);
  ASSERT_EQ(::mincore(reinterpret_cast<void*>(start), end - start, resident.data()), 0);
  std::size_t absent = 0;
  for (unsigned char r : resident) absent += (r & 1) == 0 ? 1 : 0;
  EXPECT_EQ(absent, 0u) << "of " << resident.size() << " pages";
  image(1999, 2999) = 7;
  EXPECT_EQ(image(1999, 2999), 7u);
  EXPECT_EQ(ahead.take().width(), 0) << "an image is taken once";
  TouchedImage<std::uint8_t> empty("empty", 0, 5);
  EXPECT_EQ(empty.take().height(), 5);
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
      Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>, Kokkos::IndexType<index_t>>(space, {0, 0},
                                                                                    {image.height(), image.width()}),
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
      for (index_t x = 0; x < host.width(); ++x) ASSERT_EQ(host(y, x), std::uint16_t(y * 131 + x * 7)) << x << "," << y;
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

// Kernels of the Kokkos-view tests, outside the test bodies (nvcc refuses extended lambdas in a
// gtest body, a private member function).
template <class ExecSpace, class Source, class Destination>
void copy_view(ExecSpace const& space, Source const& source, Destination const& destination) {
  Kokkos::parallel_for(
      "test::copy_view",
      Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>(space, {0, 0},
                                                        {int(destination.extent(0)), int(destination.extent(1))}),
      KOKKOS_LAMBDA(int y, int x) { destination(y, x) = source(y, x); });
}

template <class ExecSpace, class View>
void draw_stripes(ExecSpace const& space, View const& mask) {
  Kokkos::parallel_for(
      "test::stripes",
      Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>(space, {0, 0}, {int(mask.extent(0)), int(mask.extent(1))}),
      KOKKOS_LAMBDA(int y, int x) { mask(y, x) = ((x / 3 + y / 4) % 3 == 0) ? 1 : 0; });
}

// A LayoutRight Kokkos::View becomes an image over the same memory (no copy), and back.
TYPED_TEST(ImageOnBackend, KokkosViewsConvertWithoutACopy) {
  using Space = TypeParam;
  using Memory = typename Space::memory_space;
  Kokkos::View<std::uint16_t**, Kokkos::LayoutRight, Memory> view("view", 37, 53);  // 37 rows of 53
  auto image = as_image(view);
  ASSERT_EQ(image.width(), 53);
  ASSERT_EQ(image.height(), 37);
  EXPECT_EQ(image.data(), view.data());
  EXPECT_EQ(image.pitch_bytes(), 53 * 2);
  fill_pattern(Space(), image);  // written through the image, read through the view
  auto host_view = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
  for (index_t y = 0; y < 37; ++y)
    for (index_t x = 0; x < 53; ++x) ASSERT_EQ(host_view(y, x), std::uint16_t(y * 131 + x * 7)) << x << "," << y;

  // Back: an unmanaged strided view over an allocated, pitched image and over a roi of it.
  ImageView<std::uint16_t, Memory> pitched("pitched", 53, 37);
  fill_pattern(Space(), pitched);
  auto roi = pitched.roi(4, 3, 40, 30);
  auto strided = as_view(roi);
  EXPECT_EQ(strided.data(), roi.data());
  ASSERT_EQ(index_t(strided.extent(0)), 30);
  ASSERT_EQ(index_t(strided.extent(1)), 40);
  EXPECT_EQ(index_t(strided.stride(0)) * 2, pitched.pitch_bytes());
  Kokkos::View<std::uint16_t**, Kokkos::LayoutRight, Memory> dense("dense", 30, 40);
  copy_view(Space(), strided, dense);
  auto host_copy = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dense);
  for (index_t y = 0; y < 30; ++y)
    for (index_t x = 0; x < 40; ++x)
      ASSERT_EQ(host_copy(y, x), std::uint16_t((y + 3) * 131 + (x + 4) * 7)) << x << "," << y;

  // A strided subview of a LayoutRight view (a window of rows and columns) is an image too.
  auto window = Kokkos::subview(view, Kokkos::make_pair(2, 30), Kokkos::make_pair(5, 50));
  auto windowed = as_image(window);
  EXPECT_EQ(windowed.width(), 45);
  EXPECT_EQ(windowed.height(), 28);
  EXPECT_EQ(windowed.pitch_bytes(), 53 * 2);
  auto host_window = clone<Kokkos::HostSpace>(Space(), windowed, "host");
  EXPECT_EQ(host_window(0, 0), std::uint16_t(2 * 131 + 5 * 7));
  EXPECT_EQ(host_window(27, 44), std::uint16_t(29 * 131 + 49 * 7));
}

// The library's algorithms take a wrapped view as they take any image: labels of a mask held in a
// Kokkos::View equal those of the same mask in an allocated image.
TYPED_TEST(ImageOnBackend, AlgorithmsRunOnAWrappedView) {
  using Space = TypeParam;
  using Memory = typename Space::memory_space;
  Kokkos::View<std::uint8_t**, Kokkos::LayoutRight, Memory> mask("mask", 31, 45);
  draw_stripes(Space(), mask);
  Kokkos::View<Label**, Kokkos::LayoutRight, Memory> labels("labels", 31, 45);
  index_t const from_views = label(Space(), as_image(mask), as_image(labels));
  ImageView<std::uint8_t, Memory> allocated("allocated", 45, 31);
  copy(Space(), allocated, as_image(mask));
  ImageView<Label, Memory> expected("expected", 45, 31);
  EXPECT_EQ(label(Space(), allocated, expected), from_views);
  EXPECT_GT(from_views, 1);
  auto host_expected = clone<Kokkos::HostSpace>(Space(), expected, "host");
  auto host_labels = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), labels);
  for (index_t y = 0; y < 31; ++y)
    for (index_t x = 0; x < 45; ++x) ASSERT_EQ(host_labels(y, x), host_expected(y, x)) << x << "," << y;
}

// Every algorithm that takes ImageView<T const> takes an ImageView<T> as well, with the same
// result as the const view.
TYPED_TEST(ImageOnBackend, NonConstImagesAreAccepted) {
  using Space = TypeParam;
  using Memory = typename Space::memory_space;
  Space const space;
  ImageView<std::uint16_t, Memory> image("image", 41, 23);
  fill_pattern(space, image);
  ImageView<std::uint16_t const, Memory> const constant(image);
  auto same = [&](auto const& a, auto const& b) {
    auto ha = clone<Kokkos::HostSpace>(space, a, "a");
    auto hb = clone<Kokkos::HostSpace>(space, b, "b");
    for (index_t y = 0; y < ha.height(); ++y)
      for (index_t x = 0; x < ha.width(); ++x)
        if (ha(y, x) != hb(y, x)) return false;
    return true;
  };
  ImageView<std::uint8_t, Memory> mask("mask", 41, 23), mask_const("mask_const", 41, 23);
  threshold(space, image, mask, 1500.0);
  threshold(space, constant, mask_const, 1500.0);
  EXPECT_TRUE(same(mask, mask_const)) << "threshold";
  ImageView<std::uint16_t, Memory> med("median", 41, 23), med_const("median_const", 41, 23);
  median(space, image, med, 3);
  median(space, constant, med_const, 3);
  EXPECT_TRUE(same(med, med_const)) << "median";
  ImageView<float, Memory> converted("converted", 41, 23), converted_const("converted_const", 41, 23);
  convert(space, image, converted);
  convert(space, constant, converted_const);
  EXPECT_TRUE(same(converted, converted_const)) << "convert";
  EXPECT_EQ(otsu_threshold(space, image, 64), otsu_threshold(space, constant, 64));
  EXPECT_EQ(value_range(space, image).second, value_range(space, constant).second);
  BinRange const range{16, 0.0, 8192.0};
  Counts<Memory> counts("counts", 16), counts_const("counts_const", 16);
  histogram(space, image, counts, range);
  histogram(space, constant, counts_const, range);
  space.fence();
  auto hc = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), counts);
  auto hcc = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), counts_const);
  for (int b = 0; b < 16; ++b) EXPECT_EQ(hc(b), hcc(b)) << "histogram bin " << b;
  ImageView<Label, Memory> labels("labels", 41, 23);
  index_t const components = label(space, mask, labels);
  ImageView<Label const, Memory> const labels_const(labels);
  auto const stats = region_stats(space, labels_const, components, image);
  auto const stats_const = region_stats(space, labels_const, components, constant);
  ASSERT_EQ(stats.size(), stats_const.size());
  for (std::size_t i = 0; i < stats.size(); ++i) EXPECT_EQ(stats[i].mean_intensity, stats_const[i].mean_intensity);
  ImageView<Label, Memory> flooded("flooded", 41, 23), flooded_const("flooded_const", 41, 23);
  watershed(space, image, labels_const, flooded);
  watershed(space, constant, labels_const, flooded_const);
  EXPECT_TRUE(same(flooded, flooded_const)) << "watershed";
}

TEST(ImageLayout, KokkosViewsThatAreNotImagesAreUsageErrors) {
  // Columns 5 elements apart (a transposed layout): not an image.
  Kokkos::LayoutStride const transposed(4, 1, 6, 4);
  Kokkos::View<float**, Kokkos::LayoutStride, Kokkos::HostSpace> view("transposed", transposed);
  try {
    (void)as_image(view);
    FAIL() << "a view with strided columns became an image";
  } catch (Error const& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_NE(std::string(e.what()).find("as_image"), std::string::npos) << e.what();
  }
  // 3-byte pixels on 128-byte rows: the pitch is no whole number of pixels.
  HostImage<Rgb8> rgb("rgb", 10, 2);
  EXPECT_THROW((void)as_view(rgb), Error);
}

}  // namespace
}  // namespace gigaseg
