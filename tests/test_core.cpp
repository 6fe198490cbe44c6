// Errors, backend selection and the small-image policy, the runtime's build information, the
// hwloc topology, and the test-image generators themselves.
#include "gigaseg/core/context.hpp"
#include "gigaseg/core/error.hpp"
#include "gigaseg/core/runtime.hpp"
#include "gigaseg/core/scratch.hpp"
#include "gigaseg/core/topology.hpp"
#include "tests/generators.hpp"

#include <gtest/gtest.h>

#include <deque>

namespace gigaseg {
namespace {

TEST(Errors, CarryKindSubjectAndSourceLocation) {
  try {
    GIGASEG_THROW(ErrorKind::input, "slide.tif", "truncated strip 3");
  } catch (Error const& e) {
    EXPECT_STREQ(e.what(), "slide.tif: truncated strip 3");
    EXPECT_EQ(e.subject(), "slide.tif");
    EXPECT_EQ(e.exit_code(), 3);
    EXPECT_EQ(e.where().rfind("test_core.cpp:", 0), 0u) << e.where();
  }
  EXPECT_EQ(Error(ErrorKind::usage, "", "x").exit_code(), 2);
  EXPECT_EQ(Error(ErrorKind::resource, "", "x").exit_code(), 4);
  EXPECT_EQ(Error(ErrorKind::internal, "", "x").exit_code(), 1);
}

// Device memory running out is a resource error (exit code 4) naming the buffer, for both kinds of
// device allocation, and the device stays usable afterwards. 400000 x 200000 floats: 298 GiB.
TEST(CudaMemory, OutOfDeviceMemoryIsAResourceErrorNamingTheBuffer) {
#ifndef KOKKOS_ENABLE_CUDA
  GTEST_SKIP() << "no CUDA backend in this build";
#else
  auto expect_resource = [](auto&& allocate, char const* label) {
    try {
      allocate();
      ADD_FAILURE() << label << ": no error";
    } catch (Error const& e) {
      EXPECT_EQ(e.kind(), ErrorKind::resource) << e.what();
      EXPECT_EQ(e.exit_code(), 4);
      EXPECT_NE(std::string(e.what()).find(label), std::string::npos) << e.what();
    }
  };
  expect_resource([] { ImageView<float, Kokkos::CudaSpace> huge("gigaseg::test::huge", 400000, 200000); },
                  "gigaseg::test::huge");
  Kokkos::Cuda const space;
  expect_resource([&] { ScratchImage<float, Kokkos::Cuda> huge(space, "gigaseg::test::huge_scratch", 400000, 200000); },
                  "gigaseg::test::huge_scratch");
  ScratchImage<float, Kokkos::Cuda> const small(space, "gigaseg::test::small", 1000, 1000);
  EXPECT_EQ(cudaMemsetAsync(small.view().data(), 0, 4000, space.cuda_stream()), cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(space.cuda_stream()), cudaSuccess);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
#endif
}

TEST(Context, ParsesBackendsAndRejectsOthers) {
  EXPECT_EQ(parse_backend("auto"), Backend::automatic);
  EXPECT_EQ(parse_backend("openmp"), Backend::openmp);
  EXPECT_EQ(parse_backend("serial"), Backend::serial);
  EXPECT_EQ(parse_backend("cuda"), Backend::cuda);
  try {
    parse_backend("opencl");
    FAIL();
  } catch (Error const& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_EQ(e.subject(), "ContextOptions::backend");
  }
}

TEST(Context, SmallImagesGoToTheHostUnderAuto) {
  ContextOptions options;
  options.set_small_image_pixels(1000);
  options.small_image_pixels[std::size_t(OpFamily::label)] = 50;
  ExecutionContext context(options);
  EXPECT_EQ(context.small_image_pixels(OpFamily::point), 1000);
  EXPECT_EQ(context.small_image_pixels(OpFamily::label), 50);
#ifdef KOKKOS_ENABLE_CUDA
  EXPECT_EQ(context.resolve(999, OpFamily::filter), Backend::openmp);
  EXPECT_EQ(context.resolve(1000, OpFamily::filter), Backend::cuda);
  EXPECT_EQ(context.resolve(49, OpFamily::label), Backend::openmp);
  EXPECT_EQ(context.resolve(50, OpFamily::label), Backend::cuda);
  // The context's own stream, not the default (legacy) stream.
  EXPECT_NE(context.device().cuda_stream(), nullptr);
#else
  EXPECT_EQ(context.resolve(999, OpFamily::filter), Backend::openmp);
  EXPECT_EQ(context.resolve(index_t(1) << 40, OpFamily::label), Backend::openmp);
#endif
  ContextOptions forced;
  forced.backend = Backend::openmp;
  EXPECT_EQ(ExecutionContext(forced).resolve(index_t(1) << 40, OpFamily::pipeline), Backend::openmp);
  // Unset families keep the measured defaults.
  ExecutionContext defaults{ContextOptions{}};
  for (int f = 0; f < op_family_count; ++f)
    EXPECT_EQ(defaults.small_image_pixels(OpFamily(f)), default_small_image_pixels(OpFamily(f)))
        << to_string(OpFamily(f));
}

TEST(Context, SmallImagePixelsOption) {
  ContextOptions options;
  parse_small_image_pixels("4096", options);
  for (auto pixels : options.small_image_pixels) EXPECT_EQ(pixels, 4096);
  ContextOptions some;
  parse_small_image_pixels("filter=0,label=123", some);
  EXPECT_EQ(some.small_image_pixels[std::size_t(OpFamily::filter)], 0);
  EXPECT_EQ(some.small_image_pixels[std::size_t(OpFamily::label)], 123);
  EXPECT_EQ(some.small_image_pixels[std::size_t(OpFamily::point)], -1);
  for (char const* bad : {"", "-5", "12x", "colour=5", "filter", "filter=", "filter=1,,label=2"}) {
    ContextOptions o;
    try {
      parse_small_image_pixels(bad, o);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (Error const& e) {
      EXPECT_EQ(e.kind(), ErrorKind::usage) << bad;
      EXPECT_EQ(e.subject(), "ContextOptions::small_image_pixels") << e.what();
    }
  }
}

TEST(Context, UnavailableBackendIsAUsageError) {
#ifdef KOKKOS_ENABLE_CUDA
  GTEST_SKIP() << "every backend is compiled into this build";
#else
  ContextOptions options;
  options.backend = Backend::cuda;
  try {
    ExecutionContext context(options);
    FAIL();
  } catch (Error const& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_NE(std::string(e.what()).find("cuda"), std::string::npos);
  }
#endif
}

TEST(Runtime, ReportsVersionsAndBackends) {
  BuildInfo const info = build_info();
  EXPECT_EQ(info.kokkos_version.size() >= 5, true) << info.kokkos_version;
  EXPECT_EQ(info.kokkos_version.substr(0, 2) == "3." || info.kokkos_version.substr(0, 2) == "4." ||
                info.kokkos_version.substr(0, 2) == "5.",
            true)
      << info.kokkos_version;
  EXPECT_NE(std::find(info.backends.begin(), info.backends.end(), "openmp"), info.backends.end());
  EXPECT_GE(info.host_threads, 1);
  char const* threads = std::getenv("OMP_NUM_THREADS");
  if (threads != nullptr) {
    EXPECT_EQ(info.host_threads, std::atoi(threads));
  }
#ifdef KOKKOS_ENABLE_CUDA
  auto const devices = visible_devices();
  ASSERT_FALSE(devices.empty());
  EXPECT_GT(devices[0].total_memory, 0u);
  EXPECT_FALSE(devices[0].pci_bus_id.empty());
#else
  EXPECT_TRUE(visible_devices().empty());
#endif
}

TEST(Topology, CountsAreConsistent) {
  HostTopology const topology = query_topology();
  EXPECT_GE(topology.packages, 1);
  EXPECT_GE(topology.cores, topology.packages);
  EXPECT_GE(topology.processing_units, topology.cores);
  EXPECT_GE(topology.numa_nodes, 1);
  EXPECT_FALSE(topology.hwloc_version.empty());
}

// 4- or 8-connected foreground components, by breadth-first search.
index_t count_components(HostImage<std::uint8_t> const& image, bool eight) {
  HostImage<std::uint8_t> seen("seen", image.width(), image.height());
  for (index_t y = 0; y < image.height(); ++y)
    for (index_t x = 0; x < image.width(); ++x) seen(y, x) = 0;
  index_t components = 0;
  for (index_t y = 0; y < image.height(); ++y)
    for (index_t x = 0; x < image.width(); ++x) {
      if (image(y, x) == 0 || seen(y, x)) continue;
      ++components;
      std::deque<std::pair<index_t, index_t>> queue{{y, x}};
      seen(y, x) = 1;
      while (!queue.empty()) {
        auto [cy, cx] = queue.front();
        queue.pop_front();
        for (index_t dy = -1; dy <= 1; ++dy)
          for (index_t dx = -1; dx <= 1; ++dx) {
            if ((dx == 0 && dy == 0) || (!eight && dx != 0 && dy != 0)) continue;
            index_t const ny = cy + dy, nx = cx + dx;
            if (ny < 0 || nx < 0 || ny >= image.height() || nx >= image.width()) continue;
            if (image(ny, nx) == 0 || seen(ny, nx)) continue;
            seen(ny, nx) = 1;
            queue.push_back({ny, nx});
          }
      }
    }
  return components;
}

TEST(Generators, SpiralIsOneThinComponent) {
  for (auto [w, h] : {std::pair<index_t, index_t>{1, 1}, {1, 9}, {9, 1}, {31, 31}, {64, 17}, {100, 201}}) {
    auto const image = test::spiral(w, h);
    EXPECT_EQ(count_components(image, false), 1) << w << "x" << h;
    EXPECT_EQ(count_components(image, true), 1) << w << "x" << h;
    for (index_t y = 0; y + 1 < h; ++y)  // thin: no 2x2 block of foreground
      for (index_t x = 0; x + 1 < w; ++x)
        EXPECT_FALSE(image(y, x) && image(y, x + 1) && image(y + 1, x) && image(y + 1, x + 1)) << x << "," << y;
  }
  EXPECT_GT(count_components(test::checkerboard(1, 1), false), 0);
}

TEST(Generators, CheckerboardSeparatesUnder4AndJoinsUnder8) {
  auto const board = test::checkerboard(9, 7);
  EXPECT_EQ(count_components(board, false), (9 * 7 + 1) / 2);
  EXPECT_EQ(count_components(board, true), 1);
  auto const cells = test::checkerboard(12, 12, 3);
  EXPECT_EQ(cells(0, 2), 255);
  EXPECT_EQ(cells(0, 3), 0);
  EXPECT_EQ(cells(3, 3), 255);
}

TEST(Generators, RandomMaskHasItsDensityAndIsReproducible) {
  for (double density : {0.1, 0.5, 0.9}) {
    auto const mask = test::random_mask(300, 200, density, 42);
    index_t on = 0;
    for (index_t y = 0; y < 200; ++y)
      for (index_t x = 0; x < 300; ++x) on += mask(y, x) == 255;
    EXPECT_NEAR(double(on) / 60000.0, density, 0.01);
    EXPECT_EQ(test::count_differences(mask, test::random_mask(300, 200, density, 42)), 0);
    EXPECT_GT(test::count_differences(mask, test::random_mask(300, 200, density, 43)), 0);
  }
}

}  // namespace
}  // namespace gigaseg
