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

}  // namespace
}  // namespace gigaseg
