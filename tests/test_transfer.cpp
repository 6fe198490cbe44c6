// Host <-> backend transfers with every combination of whole images and pitched rois, and sizes
// that are odd, single rows and single columns. A sentinel border around each destination roi
// checks that nothing outside it is written.
#include "gigaseg/core/transfer.hpp"
#include "tests/backends.hpp"
#include "tests/generators.hpp"

#include <gtest/gtest.h>

namespace gigaseg {
namespace {

template <class ExecSpace>
class TransferOnBackend : public ::testing::Test {};
GIGASEG_BACKEND_TEST_SUITE(TransferOnBackend);

std::vector<std::pair<index_t, index_t>> const sizes = {{1, 1}, {1, 300}, {300, 1}, {129, 3}, {77, 41}, {640, 17}};

template <class T, class Memory, class Space>
void round_trip(Space const& space, HostImage<T> const& source, bool device_roi, bool host_roi) {
  index_t const w = source.width(), h = source.height();
  T const sentinel = T{};
  // Host source, possibly as a roi of a larger parent (a pitch that differs from the device's).
  auto src_padded = test::padded_roi<T>(w, h, 3, sentinel);
  HostImage<T> src = host_roi ? src_padded.roi : HostImage<T>("src", w, h);
  copy(Kokkos::DefaultHostExecutionSpace(), src, source);
  // Device image, possibly a roi of a larger device parent.
  ImageView<T, Memory> device_parent("device_parent", w + 9, h + 4);
  ImageView<T, Memory> device = device_roi ? device_parent.roi(5, 2, w, h) : ImageView<T, Memory>("device", w, h);
  copy(space, device, src);
  // Back into a roi of a host canvas filled with a sentinel.
  auto back = test::padded_roi<T>(w, h, 2, sentinel);
  copy(space, back.roi, device);
  space.fence();
  EXPECT_EQ(test::count_differences(back.roi, source), 0)
      << w << "x" << h << " device_roi=" << device_roi << " host_roi=" << host_roi;
  // The canvas outside the roi is still the sentinel.
  index_t touched = 0;
  for (index_t y = 0; y < back.parent.height(); ++y)
    for (index_t x = 0; x < back.parent.width(); ++x) {
      bool const inside = x >= 2 && x < 2 + w && y >= 2 && y < 2 + h;
      if (!inside && !(back.parent(y, x) == sentinel)) ++touched;
    }
  EXPECT_EQ(touched, 0) << "bytes outside the destination roi were written";
}

template <class Space>
void all_layouts(Space const& space) {
  using Memory = typename Space::memory_space;
  for (auto [w, h] : sizes)
    for (bool device_roi : {false, true})
      for (bool host_roi : {false, true}) {
        round_trip<std::uint8_t, Memory>(space, test::noise_u8(w, h, 1), device_roi, host_roi);
        round_trip<Rgb8, Memory>(space, test::noise_rgb8(w, h, 2), device_roi, host_roi);
        round_trip<float, Memory>(space, test::noise_f32(w, h, 3), device_roi, host_roi);
      }
}

TYPED_TEST(TransferOnBackend, RoundTripsEveryLayout) { all_layouts(TypeParam()); }

TYPED_TEST(TransferOnBackend, SizeMismatchIsAnInputError) {
  using Memory = typename TypeParam::memory_space;
  ImageView<std::uint8_t, Memory> a("a", 10, 10), b("b", 10, 11);
  try {
    copy(TypeParam(), a, b);
    FAIL();
  } catch (Error const& e) {
    EXPECT_EQ(e.kind(), ErrorKind::input);
    EXPECT_NE(std::string(e.what()).find("10x11"), std::string::npos);
  }
}

TYPED_TEST(TransferOnBackend, DeviceToDeviceBetweenPitches) {
  using Memory = typename TypeParam::memory_space;
  auto const source = test::noise_u16(123, 45, 9);
  auto device = clone<Memory>(TypeParam(), source, "device");
  ImageView<std::uint16_t, Memory> wide("wide", 200, 50);
  auto target = wide.roi(7, 3, 123, 45);
  copy(TypeParam(), target, device);
  auto back = clone<Kokkos::HostSpace>(TypeParam(), target, "back");
  EXPECT_EQ(test::count_differences(back, source), 0);
}

// Copies of 128 MiB or more between pageable host memory and a GPU go through pinned staging in
// bands of rows (core/cuda/transfer_cuda.hpp): a height that is no whole number of bands, pitched
// rois on both sides, up and down; the same bytes back. On host backends a plain copy.
TYPED_TEST(TransferOnBackend, LargeCopiesRoundTripThroughStaging) {
  using Memory = typename TypeParam::memory_space;
  index_t const w = 11000, h = 12345;  // 135.8 MB of 8-bit pixels, 1525 rows a 16 MiB band
  HostImage<std::uint8_t> parent("parent", w + 40, h + 3);
  HostImage<std::uint8_t> const source = parent.roi(17, 2, w, h);
  Kokkos::parallel_for("fill", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace, Kokkos::IndexType<index_t>>(0, h),
                       [=](index_t y) {
                         for (index_t x = 0; x < w; ++x)
                           source(y, x) = std::uint8_t((y * 2654435761u + x * 40503u) >> 7);
                       });
  Kokkos::DefaultHostExecutionSpace().fence();
  ImageView<std::uint8_t, Memory> device_parent("device_parent", w + 5, h + 1);
  ImageView<std::uint8_t, Memory> const device = device_parent.roi(3, 1, w, h);
  copy(TypeParam(), device, source);
  HostImage<std::uint8_t> const back = clone<Kokkos::HostSpace>(TypeParam(), device, "back");
  EXPECT_EQ(test::count_differences(back, source), 0);
  HostImage<std::uint8_t> canvas("canvas", w + 9, h);
  HostImage<std::uint8_t> const pitched = canvas.roi(9, 0, w, h);
  copy(TypeParam(), pitched, device);
  TypeParam().fence();
  EXPECT_EQ(test::count_differences(pitched, source), 0);
}

}  // namespace
}  // namespace gigaseg
