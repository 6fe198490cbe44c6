// The library's engine on every backend: segment_image on a context, and run_batch with its
// reader, lane and writer threads. A batch must give, item for item, the labels of the plain
// segment_image in every mode (sequential, one lane, several lanes with fewer writers, kmeans on
// colour), report each failing item once with where it failed (read, segment, write) while the
// others go on, call `done` on the calling thread only, and refuse out-of-range options by name.
#include "gigaseg/algorithms/pipelines/synthetic.hpp"
#include "gigaseg/engine/batch.hpp"
#include "gigaseg/engine/segment.hpp"
#include "tests/backends.hpp"

#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace gigaseg {
namespace {

template <class ExecSpace>
class Engine : public ::testing::Test {};
GIGASEG_BACKEND_TEST_SUITE(Engine);

template <class Space>
Backend backend_of() {
#ifdef KOKKOS_ENABLE_SERIAL
  if (std::is_same<Space, Kokkos::Serial>::value) return Backend::serial;
#endif
  if (std::is_same<Space, Kokkos::OpenMP>::value) return Backend::openmp;
  return Backend::cuda;
}

// A context that runs everything on `Space`, whatever the size.
template <class Space>
ContextOptions options_for() {
  ContextOptions options;
  options.backend = backend_of<Space>();
  options.set_small_image_pixels(0);
  return options;
}

template <class T>
HostImage<T> deep_copy(HostImage<T> const& image) {
  HostImage<T> copy("gigaseg::test::copy", image.width(), image.height());
  for (index_t y = 0; y < image.height(); ++y)
    for (index_t x = 0; x < image.width(); ++x) copy(y, x) = image(y, x);
  return copy;
}

HostImage<Rgb8> as_rgb(HostImage<std::uint8_t> const& gray) {
  HostImage<Rgb8> rgb("gigaseg::test::rgb", gray.width(), gray.height());
  for (index_t y = 0; y < gray.height(); ++y)
    for (index_t x = 0; x < gray.width(); ++x) {
      std::uint8_t const v = gray(y, x);
      rgb(y, x) = Rgb8{v, std::uint8_t(v / 2), std::uint8_t(255 - v)};
    }
  return rgb;
}

// Six items of two sizes (the lanes' device images are resized between them): item 2 cannot be
// read, item 4 is a float image (no pipeline takes it), item 5's writer fails.
struct Items {
  std::vector<std::string> names;
  std::vector<AnyHostImage> images;
  explicit Items(bool colour) {
    for (int i = 0; i < 6; ++i) {
      names.push_back("item" + std::to_string(i) + ".png");
      SyntheticParams p;
      p.width = i % 2 == 0 ? 300 : 257;
      p.height = i % 2 == 0 ? 280 : 311;
      p.min_radius = 6;
      p.max_radius = 11;
      p.seed = std::uint64_t(11 + i);
      HostImage<std::uint8_t> const gray = synthetic_tissue(p).image;
      if (i == 4)
        images.push_back(HostImage<float>("gigaseg::test::float", 40, 30));
      else if (colour)
        images.push_back(as_rgb(gray));
      else
        images.push_back(gray);
    }
  }
};

template <class Space>
void check_batch(PipelineParams const& params, BatchOptions const& options, bool colour) {
  ExecutionContext context(options_for<Space>());
  Items const items(colour);
  std::thread::id const caller = std::this_thread::get_id();
  std::mutex mutex;
  std::map<std::size_t, HostImage<Label>> written;
  std::map<std::size_t, BatchItem> finished;
  BatchIO io;
  io.read = [&](std::size_t i) -> AnyHostImage {
    if (i == 2) GIGASEG_THROW(ErrorKind::input, items.names[i], "cannot decode");
    return items.images[i];
  };
  io.write = [&](std::size_t i, Segmentation const& s, AnyHostImage const& input) {
    EXPECT_EQ(width(input), width(items.images[i]));
    if (i == 5) throw std::runtime_error("disk full");
    std::lock_guard<std::mutex> lock(mutex);
    written[i] = deep_copy(s.labels);  // the labels' pinned block is reused once write returns
  };
  io.done = [&](BatchItem const& item) {
    EXPECT_EQ(std::this_thread::get_id(), caller);
    EXPECT_TRUE(finished.emplace(item.index, item).second) << "item " << item.index << " reported twice";
  };
  BatchReport const report = run_batch(context, params, items.names, io, options);

  EXPECT_EQ(report.items, 6u);
  EXPECT_EQ(report.ok, 3u);
  EXPECT_EQ(report.failed, 3u);
  EXPECT_EQ(report.backends.at(to_string(backend_of<Space>())), 4u);  // items 0, 1, 3 and 5
  EXPECT_GT(report.seconds, 0);
  ASSERT_EQ(finished.size(), 6u);
  EXPECT_STREQ(finished[2].failed_in, "read");
  EXPECT_STREQ(finished[4].failed_in, "segment");
  EXPECT_STREQ(finished[5].failed_in, "write");
  try {
    std::rethrow_exception(finished[4].error);
  } catch (Error const& e) {
    EXPECT_EQ(e.subject(), "item4.png");  // the item's name
    EXPECT_EQ(e.kind(), ErrorKind::input);
  }
  for (std::size_t i : {std::size_t(2), std::size_t(4), std::size_t(5)}) {
    EXPECT_TRUE(finished[i].error) << i;
    EXPECT_EQ(finished[i].components, 0) << i;
  }
  for (std::size_t i : {std::size_t(0), std::size_t(1), std::size_t(3)}) {
    SCOPED_TRACE("item " + std::to_string(i));
    EXPECT_FALSE(finished[i].error);
    EXPECT_STREQ(finished[i].failed_in, "");
    EXPECT_EQ(finished[i].backend, backend_of<Space>());
    Segmentation const expected = segment_image(context, params, items.images[i], items.names[i]);
    EXPECT_GT(expected.components(), 20);
    EXPECT_EQ(finished[i].components, expected.components());
    ASSERT_EQ(written.count(i), 1u);
    HostImage<Label> const& got = written[i];
    ASSERT_EQ(got.width(), expected.labels.width());
    ASSERT_EQ(got.height(), expected.labels.height());
    index_t differ = 0;
    for (index_t y = 0; y < got.height(); ++y)
      for (index_t x = 0; x < got.width(); ++x) differ += got(y, x) != expected.labels(y, x) ? 1 : 0;
    EXPECT_EQ(differ, 0);
  }
}

BatchOptions sequential() {
  BatchOptions o;
  o.sequential = true;
  return o;
}
BatchOptions lanes(int n, int readers, int writers) {
  BatchOptions o;
  o.lanes = n;
  o.readers = readers;
  o.writers = writers;
  return o;
}

TYPED_TEST(Engine, BatchSequentialEqualsSegmentImage) { check_batch<TypeParam>(CellsParams{}, sequential(), false); }
TYPED_TEST(Engine, BatchOneLaneEqualsSegmentImage) { check_batch<TypeParam>(CellsParams{}, lanes(1, 2, 2), false); }
TYPED_TEST(Engine, BatchThreeLanesOneWriterEqualsSegmentImage) {
  check_batch<TypeParam>(CellsParams{}, lanes(3, 4, 1), false);
}
TYPED_TEST(Engine, BatchNucleiOnColourEqualsSegmentImage) {
  check_batch<TypeParam>(NucleiParams{}, lanes(2, 2, 2), true);
}
TYPED_TEST(Engine, BatchKMeansOnColourEqualsSegmentImage) {
  check_batch<TypeParam>(KMeansSegmentParams{}, lanes(2, 3, 2), true);
}

TYPED_TEST(Engine, SegmentImageReportsItsBackendAndStages) {
  ExecutionContext context(options_for<TypeParam>());
  Items const items(false);
  Segmentation const s = segment_image(context, CellsParams{}, items.images[0], items.names[0]);
  EXPECT_EQ(s.backend, backend_of<TypeParam>());
  EXPECT_TRUE(std::holds_alternative<CellsResult>(s.result));
  EXPECT_EQ(s.labels.width(), 300);
  EXPECT_EQ(index_t(s.regions().size()), s.components());
  EXPECT_EQ(s.timings_ms.count("upload"), 1u);
  EXPECT_EQ(s.timings_ms.count("download"), 1u);
  EXPECT_STREQ(pipeline_name(CellsParams{}), "cells");
  EXPECT_STREQ(pipeline_name(NucleiParams{}), "nuclei");
  EXPECT_STREQ(pipeline_name(KMeansSegmentParams{}), "kmeans");
}

TEST(Engine, BatchOptionsOutOfRangeNameTheField) {
  ExecutionContext context(options_for<Kokkos::DefaultHostExecutionSpace>());
  BatchIO io;
  io.read = [](std::size_t) -> AnyHostImage { return HostImage<std::uint8_t>("x", 8, 8); };
  io.write = [](std::size_t, Segmentation const&, AnyHostImage const&) {};
  std::vector<std::string> const names{"a"};
  for (auto const& [options, field] :
       {std::pair{lanes(0, 0, 0), "BatchOptions::lanes"}, std::pair{lanes(65, 0, 0), "BatchOptions::lanes"},
        std::pair{lanes(2, -1, 0), "BatchOptions::readers"}, std::pair{lanes(2, 0, 300), "BatchOptions::writers"}}) {
    try {
      run_batch(context, CellsParams{}, names, io, options);
      ADD_FAILURE() << "accepted options for " << field;
    } catch (Error const& e) {
      EXPECT_EQ(e.kind(), ErrorKind::usage);
      EXPECT_EQ(e.subject(), field);
    }
  }
  BatchIO no_writer;
  no_writer.read = io.read;
  EXPECT_THROW(run_batch(context, CellsParams{}, names, no_writer), Error);
}

}  // namespace
}  // namespace gigaseg
