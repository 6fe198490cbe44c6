// Process groups (engine/process_group.hpp) without MPI: the tiles' shares, the byte messages, the
// ranks' agreement on a failure, the shared counter and the shared tile writer, with ranks played
// by threads of this process (ThreadGroup). The same code under MPI: tests/mpi/test_mpi.sh.
#include "gigaseg/core/io/image_file.hpp"
#include "gigaseg/core/io/tile_writer.hpp"
#include "gigaseg/engine/process_group.hpp"
#include "gigaseg/engine/tile_reader.hpp"
#include "gigaseg/engine/tile_rings.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <mutex>
#include <numeric>
#include <random>
#include <set>
#include <thread>

#include <fcntl.h>
#include <unistd.h>

namespace gigaseg {
namespace {

// What the ranks of a ThreadGroup share: a barrier for the collectives, a mailbox per pair of
// ranks, and a counter.
struct ThreadWorld {
  explicit ThreadWorld(int n) : size(n), gathered(std::size_t(n)) {}
  int const size;
  std::mutex mutex;
  std::condition_variable changed;
  // all_gather: contributions of the current generation; `arrived` ranks have given theirs.
  std::vector<std::vector<unsigned char>> gathered;
  int arrived = 0, departed = 0;
  long generation = 0;
  std::map<std::pair<int, int>, std::deque<std::vector<unsigned char>>> mail;  // (from, to)
  std::size_t counted = 0;
};

class ThreadGroup final : public ProcessGroup {
 public:
  ThreadGroup(ThreadWorld& world, int rank) : world_(world), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return world_.size; }
  std::vector<std::vector<unsigned char>> all_gather(std::vector<unsigned char> const& mine) const override {
    std::unique_lock<std::mutex> lock(world_.mutex);
    world_.changed.wait(lock, [&] { return world_.departed == 0; });  // the last round has emptied
    long const generation = world_.generation;
    world_.gathered[std::size_t(rank_)] = mine;
    if (++world_.arrived == world_.size) {
      ++world_.generation;
      world_.changed.notify_all();
    }
    world_.changed.wait(lock, [&] { return world_.generation != generation; });
    std::vector<std::vector<unsigned char>> all = world_.gathered;
    if (++world_.departed == world_.size) {
      world_.arrived = world_.departed = 0;
      world_.changed.notify_all();
    }
    return all;
  }
  void sum(std::uint64_t* values, std::size_t count) const override {
    std::vector<unsigned char> bytes;
    detail::append_bytes(bytes, values, count);
    std::vector<std::vector<unsigned char>> const all = all_gather(bytes);
    std::fill(values, values + count, 0);
    for (auto const& theirs : all)
      for (std::size_t i = 0; i < count; ++i) {
        std::uint64_t v;
        std::memcpy(&v, theirs.data() + i * sizeof v, sizeof v);
        values[i] += v;
      }
  }
  void send(int to, std::vector<unsigned char> const& bytes) const override {
    std::lock_guard<std::mutex> lock(world_.mutex);
    world_.mail[{rank_, to}].push_back(bytes);
    world_.changed.notify_all();
  }
  std::vector<unsigned char> receive(int from) const override {
    std::unique_lock<std::mutex> lock(world_.mutex);
    auto& box = world_.mail[{from, rank_}];
    world_.changed.wait(lock, [&] { return !box.empty(); });
    std::vector<unsigned char> bytes = std::move(box.front());
    box.pop_front();
    return bytes;
  }
  std::unique_ptr<WorkCounter> work_counter(std::size_t limit) const override {
    struct Counter final : WorkCounter {
      ThreadWorld& world;
      std::size_t limit;
      Counter(ThreadWorld& w, std::size_t l) : world(w), limit(l) {}
      std::size_t next() override {
        std::lock_guard<std::mutex> lock(world.mutex);
        return world.counted < limit ? world.counted++ : limit;
      }
    };
    return std::make_unique<Counter>(world_, limit);
  }

 private:
  ThreadWorld& world_;
  int rank_;
};

// Runs work(group) on `ranks` threads, one rank each; their exceptions in `errors`.
void on_ranks(int ranks, std::function<void(ProcessGroup const&)> const& work,
              std::vector<std::exception_ptr>* errors = nullptr) {
  ThreadWorld world(ranks);
  std::vector<std::exception_ptr> failed(static_cast<std::size_t>(ranks));
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r)
    threads.emplace_back([&, r] {
      ThreadGroup const group(world, r);
      try {
        work(group);
      } catch (...) {
        failed[std::size_t(r)] = std::current_exception();
      }
    });
  for (auto& t : threads) t.join();
  if (errors != nullptr) *errors = failed;
  for (auto const& e : failed)
    if (e && errors == nullptr) std::rethrow_exception(e);
}

std::string scratch_path(std::string const& name) {
  return (std::filesystem::temp_directory_path() / ("gigaseg-test-group-" + name)).string();
}

std::vector<char> bytes_of(std::string const& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(ProcessGroup, OwnedTilesAreEvenRunsInOrder) {
  for (std::size_t tiles : {1, 2, 7, 16, 101})
    for (int ranks = 1; ranks <= 9; ++ranks) {
      std::vector<std::size_t> all;
      for (int r = 0; r < ranks; ++r) {
        std::vector<std::size_t> const mine = detail::owned_tiles(tiles, r, ranks);
        EXPECT_LE(mine.size(), tiles / std::size_t(ranks) + 1);
        EXPECT_GE(mine.size(), tiles / std::size_t(ranks));
        all.insert(all.end(), mine.begin(), mine.end());
      }
      std::vector<std::size_t> expected(tiles);
      std::iota(expected.begin(), expected.end(), std::size_t(0));
      EXPECT_EQ(all, expected) << "every tile once, in raster order by rank";
    }
}

TEST(ProcessGroup, BytesRoundTrip) {
  std::vector<unsigned char> bytes;
  std::uint64_t const n = 42;
  detail::append_bytes(bytes, &n, 1);
  detail::append_bytes(bytes, std::vector<std::uint32_t>{7, 8, 9});
  detail::append_bytes(bytes, std::vector<double>{});
  detail::ByteReader in(bytes);
  EXPECT_EQ(in.value<std::uint64_t>(), 42u);
  EXPECT_EQ(in.values<std::uint32_t>(), (std::vector<std::uint32_t>{7, 8, 9}));
  EXPECT_TRUE(in.values<double>().empty());
  EXPECT_THROW(in.value<std::uint32_t>(), Error) << "reading past the end";
}

TEST(ProcessGroup, EveryRankThrowsTheFirstFailedRanksError) {
  std::vector<std::exception_ptr> errors;
  on_ranks(
      4,
      [](ProcessGroup const& group) {
        detail::collectively(&group, [&] {
          if (group.rank() == 2) GIGASEG_THROW(ErrorKind::input, "tile.tif", "corrupt tile at 64,64");
          if (group.rank() == 3) throw std::bad_alloc();
        });
      },
      &errors);
  for (int r = 0; r < 4; ++r) {
    ASSERT_TRUE(errors[std::size_t(r)]) << "rank " << r << " went on past a failure";
    try {
      std::rethrow_exception(errors[std::size_t(r)]);
    } catch (Error const& e) {
      EXPECT_EQ(e.kind(), ErrorKind::input) << "rank " << r;
      EXPECT_EQ(e.subject(), "tile.tif");
      EXPECT_EQ(e.reason(), "corrupt tile at 64,64");
    }
  }
  // Out of memory on one rank alone: on the others an OutOfMemory naming that rank (the buffer, its
  // size and memory space where the failed rank knew them), a resource error; the rank that failed
  // keeps its own exception.
  on_ranks(
      3,
      [](ProcessGroup const& group) {
        detail::collectively(&group, [&] {
          if (group.rank() == 1) throw std::bad_alloc();
        });
      },
      &errors);
  for (int r = 0; r < 3; ++r) {
    ASSERT_TRUE(errors[std::size_t(r)]);
    try {
      std::rethrow_exception(errors[std::size_t(r)]);
    } catch (OutOfMemory const& error) {
      EXPECT_NE(r, 1);
      EXPECT_EQ(error.kind(), ErrorKind::resource);
      EXPECT_EQ(error.rank(), 1);
      EXPECT_EQ(error.bytes(), 0u) << "a std::bad_alloc's size is not known";
      EXPECT_EQ(error.memory_space(), "Host");
    } catch (std::bad_alloc const&) {
      EXPECT_EQ(r, 1);
    }
  }
  on_ranks(
      2,
      [](ProcessGroup const& group) {
        detail::collectively(&group, [&] {
          if (group.rank() == 0) throw OutOfMemory("gigaseg::tiled::labels", std::size_t(69) << 20, "Cuda");
        });
      },
      &errors);
  try {
    std::rethrow_exception(errors[1]);
  } catch (OutOfMemory const& error) {
    EXPECT_EQ(error.subject(), "gigaseg::tiled::labels");
    EXPECT_EQ(error.bytes(), std::size_t(69) << 20);
    EXPECT_EQ(error.memory_space(), "Cuda");
    EXPECT_EQ(error.rank(), 0);
    EXPECT_EQ(error.reason(), "out of memory allocating 69 MiB in Cuda on rank 0");
  }
  // Kokkos's own report of a view it could not allocate reaches the other ranks as that text, which
  // the command line reads as out of memory on every rank.
  std::string const kokkos =
      "Kokkos failed to allocate memory for label \"gigaseg::x\".  Allocation using MemorySpace named \"Cuda\" "
      "failed with the following error:  Allocation of size 1.5 G failed, likely due to insufficient memory.\n";
  on_ranks(
      2,
      [&](ProcessGroup const& group) {
        detail::collectively(&group, [&] {
          if (group.rank() == 1) throw std::runtime_error(kokkos);
        });
      },
      &errors);
  for (auto const& e : errors) {
    try {
      std::rethrow_exception(e);
    } catch (std::runtime_error const& error) {
      EXPECT_EQ(std::string(error.what()), kokkos);
      EXPECT_EQ(dynamic_cast<Error const*>(&error), nullptr) << "not an internal error";
      EXPECT_TRUE(is_kokkos_allocation_failure(error.what()));
    }
  }
  // No failure: nobody throws.
  on_ranks(3, [](ProcessGroup const& group) { detail::collectively(&group, [] {}); });
}

TEST(ProcessGroup, WorkCounterHandsOutEachNumberOnce) {
  std::mutex mutex;
  std::multiset<std::size_t> seen;
  on_ranks(5, [&](ProcessGroup const& group) {
    std::unique_ptr<WorkCounter> counter = group.work_counter(100);
    for (std::size_t i = counter->next(); i < 100; i = counter->next()) {
      std::lock_guard<std::mutex> lock(mutex);
      seen.insert(i);
    }
    EXPECT_EQ(counter->next(), 100u) << "stays at the limit";
  });
  std::multiset<std::size_t> expected;
  for (std::size_t i = 0; i < 100; ++i) expected.insert(i);
  EXPECT_EQ(seen, expected);
}

// A 13 x 11 tile grid of 16 x 16 tiles (the last row and column cut) with a value per pixel.
HostImage<std::uint32_t> tile_pixels(index_t column, index_t row, index_t w, index_t h) {
  HostImage<std::uint32_t> tile("tile", w, h);
  for (index_t y = 0; y < h; ++y)
    for (index_t x = 0; x < w; ++x) tile(y, x) = std::uint32_t((row * 16 + y) * 1000 + column * 16 + x);
  return tile;
}

TEST(ProcessGroup, TilesInAnyOrderAndFromEveryRankMakeTheSameFile) {
  index_t const width = 200, height = 170, tile = 16;
  index_t const across = (width + tile - 1) / tile, down = (height + tile - 1) / tile;
  WriteOptions options;
  options.tiff_compression = TiffCompression::deflate;
  auto write = [&](TiffTileWriter& writer, index_t t) {
    index_t const c = t % across, r = t / across;
    writer.write_tile(c, r, tile_pixels(c, r, std::min(tile, width - c * tile), std::min(tile, height - r * tile)));
  };
  // In raster order, and in reverse order: the same bytes (tiles stored in raster order).
  std::string const in_order = scratch_path("in-order.tif"), reversed = scratch_path("reversed.tif");
  {
    TiffTileWriter writer(in_order, width, height, PixelType::u32, tile, tile, options);
    for (index_t t = 0; t < across * down; ++t) write(writer, t);
    writer.commit();
  }
  {
    TiffTileWriter writer(reversed, width, height, PixelType::u32, tile, tile, options);
    for (index_t t = across * down - 1; t >= 0; --t) write(writer, t);
    writer.commit();
  }
  EXPECT_EQ(bytes_of(in_order), bytes_of(reversed));
  // An encoder's bytes through write_encoded_tile: the same file.
  std::string const encoded = scratch_path("encoded.tif");
  {
    TiffTileWriter writer(encoded, width, height, PixelType::u32, tile, tile, options);
    TiffTileEncoder const encoder(encoded, width, height, PixelType::u32, tile, tile, options);
    std::vector<unsigned char> bytes;
    for (index_t t = 0; t < across * down; ++t) {
      index_t const c = t % across, r = t / across;
      encoder.encode(c, r, tile_pixels(c, r, std::min(tile, width - c * tile), std::min(tile, height - r * tile)),
                     bytes);
      writer.write_encoded_tile(c, r, bytes.data(), bytes.size());
    }
    writer.commit();
  }
  EXPECT_EQ(bytes_of(in_order), bytes_of(encoded));
  // Every third tile reserved and written into its place by another hand before the commit: the
  // same file.
  std::string const reserved = scratch_path("reserved.tif");
  {
    TiffTileWriter writer(reserved, width, height, PixelType::u32, tile, tile, options);
    TiffTileEncoder const encoder(reserved, width, height, PixelType::u32, tile, tile, options);
    std::vector<std::vector<unsigned char>> later(std::size_t(across * down));
    for (index_t t = across * down - 1; t >= 0; --t) {  // in reverse: reserved tiles wait their turn too
      index_t const c = t % across, r = t / across;
      std::vector<unsigned char> bytes;
      encoder.encode(c, r, tile_pixels(c, r, std::min(tile, width - c * tile), std::min(tile, height - r * tile)),
                     bytes);
      if (t % 3 == 1) {
        writer.reserve_tile(c, r, bytes.size());
        later[std::size_t(t)] = std::move(bytes);
      } else {
        writer.write_encoded_tile(c, r, bytes.data(), bytes.size());
      }
    }
    int const fd = ::open(writer.temp_path().c_str(), O_WRONLY);
    ASSERT_GE(fd, 0);
    for (index_t t = 0; t < across * down; ++t)
      if (t % 3 == 1) {
        auto const& bytes = later[std::size_t(t)];
        ASSERT_EQ(::pwrite(fd, bytes.data(), bytes.size(), off_t(writer.tile_offset(t % across, t / across))),
                  ssize_t(bytes.size()));
      }
    ::close(fd);
    writer.commit();
  }
  EXPECT_EQ(bytes_of(in_order), bytes_of(reserved));
  // Three ranks, each writing its own tiles (in reverse), rank 0 committing: the same file, and
  // it decodes to the pixels.
  std::string const shared = scratch_path("shared.tif");
  on_ranks(3, [&](ProcessGroup const& group) {
    detail::SharedTileWriter writer(&group, shared, width, height, PixelType::u32, tile, tile, options);
    std::vector<std::size_t> mine = detail::owned_tiles(std::size_t(across * down), &group);
    std::reverse(mine.begin(), mine.end());
    for (std::size_t t : mine) {
      index_t const c = index_t(t) % across, r = index_t(t) / across;
      writer.write_tile(c, r, tile_pixels(c, r, std::min(tile, width - c * tile), std::min(tile, height - r * tile)));
    }
    writer.commit();
  });
  EXPECT_EQ(bytes_of(in_order), bytes_of(shared));
  // An OME-TIFF, whose pyramid rank 0 makes from the file: the tiles travel to rank 0 instead; the
  // same file as one process writes.
  std::string const ome = scratch_path("labels.ome.tif");  // one name: the OME-XML names the file
  {
    TiffTileWriter writer(ome, width, height, PixelType::u32, tile, tile, options);
    for (index_t t = 0; t < across * down; ++t) write(writer, t);
    writer.commit();
  }
  auto const one_process = bytes_of(ome);
  std::filesystem::remove(ome);
  on_ranks(3, [&](ProcessGroup const& group) {
    detail::SharedTileWriter writer(&group, ome, width, height, PixelType::u32, tile, tile, options);
    for (std::size_t t : detail::owned_tiles(std::size_t(across * down), &group)) {
      index_t const c = index_t(t) % across, r = index_t(t) / across;
      writer.write_tile(c, r, tile_pixels(c, r, std::min(tile, width - c * tile), std::min(tile, height - r * tile)));
    }
    writer.commit();
  });
  EXPECT_EQ(one_process, bytes_of(ome));
  std::filesystem::remove(ome);
  AnyHostImage const image = read_image(shared);
  auto const& pixels = std::get<HostImage<std::uint32_t>>(image);
  EXPECT_EQ(pixels(169, 199), std::uint32_t(169 * 1000 + 199));
  EXPECT_EQ(pixels(17, 33), std::uint32_t(17 * 1000 + 33));
  for (auto const& path : {in_order, reversed, encoded, reserved, shared}) std::filesystem::remove(path);
}

TEST(ProcessGroup, AFailedRankLeavesNoOutputAndNoScratch) {
  std::string const path = scratch_path("failed.tif");
  std::filesystem::remove(path);
  std::vector<std::exception_ptr> errors;
  on_ranks(
      3,
      [&](ProcessGroup const& group) {
        detail::SharedTileWriter writer(&group, path, 64, 64, PixelType::u32, 16, 16, default_write_options());
        detail::collectively(&group, [&] {
          for (std::size_t t : detail::owned_tiles(16, &group)) {
            if (group.rank() == 1) GIGASEG_THROW(ErrorKind::input, "in.tif", "corrupt");
            writer.write_tile(index_t(t) % 4, index_t(t) / 4, tile_pixels(index_t(t) % 4, index_t(t) / 4, 16, 16));
          }
        });
        writer.commit();
      },
      &errors);
  for (auto const& e : errors) EXPECT_TRUE(e);
  EXPECT_FALSE(std::filesystem::exists(path));
  for (auto const& entry : std::filesystem::directory_iterator(std::filesystem::temp_directory_path()))
    EXPECT_EQ(entry.path().filename().string().find("rank-tiles"), std::string::npos) << entry.path();
}

// The rounds of tiles with rings (detail::ring_rounds) over ranks: a fixpoint computed tile by
// tile, each tile seeing only its ring, is the same on 1 to 4 ranks as on one process and as
// computed on the whole image. The fixpoint: each foreground pixel's least raster index in its
// 4-connected component (a minimum that travels across any number of tiles, through a maze).
TEST(ProcessGroup, RoundsOfRingedTilesReachTheSameFixpointOnAnyNumberOfRanks) {
  index_t const width = 150, height = 110;
  detail::TileGrid const grid(width, height, 32, 24);
  std::vector<std::uint8_t> inside(std::size_t(width * height));
  std::mt19937 random(11);
  for (index_t y = 0; y < height; ++y)
    for (index_t x = 0; x < width; ++x)  // long corridors, broken at random
      inside[std::size_t(y * width + x)] = (y % 4 != 3 || x % 37 == 5) && random() % 9 != 0;
  std::uint32_t const none = ~std::uint32_t(0);
  // The whole image's answer: a flood of least indices, to a fixpoint.
  std::vector<std::uint32_t> expected(inside.size(), none);
  for (std::size_t i = 0; i < inside.size(); ++i)
    if (inside[i]) expected[i] = std::uint32_t(i);
  for (bool changed = true; changed;) {
    changed = false;
    for (index_t y = 0; y < height; ++y)
      for (index_t x = 0; x < width; ++x) {
        std::size_t const i = std::size_t(y * width + x);
        if (!inside[i]) continue;
        for (auto [dy, dx] : {std::pair<int, int>{-1, 0}, {1, 0}, {0, -1}, {0, 1}}) {
          index_t const ny = y + dy, nx = x + dx;
          if (ny < 0 || nx < 0 || ny >= height || nx >= width) continue;
          std::uint32_t const v = expected[std::size_t(ny * width + nx)];
          if (v < expected[i]) expected[i] = v, changed = true;
        }
      }
  }
  // Tile t's least indices given its ring: a flood inside the tile from the ring's values.
  auto solve = [&](detail::Seams<std::uint32_t> const& seams, index_t t, std::vector<std::uint32_t>& tile_out) {
    Region const core = grid.core(t);
    index_t const w = core.width + 2, h = core.height + 2;
    std::vector<std::uint32_t> v(std::size_t(w * h), none);
    for (index_t y = 0; y < h; ++y)
      for (index_t x = 0; x < w; ++x) {
        index_t const gy = core.y - 1 + y, gx = core.x - 1 + x;
        bool const ring = y == 0 || x == 0 || y == h - 1 || x == w - 1;
        if (gy < 0 || gx < 0 || gy >= height || gx >= width || !inside[std::size_t(gy * width + gx)]) continue;
        v[std::size_t(y * w + x)] = ring ? seams.get(gy, gx) : std::uint32_t(gy * width + gx);
      }
    for (bool changed = true; changed;) {
      changed = false;
      for (index_t y = 1; y < h - 1; ++y)
        for (index_t x = 1; x < w - 1; ++x) {
          std::uint32_t& here = v[std::size_t(y * w + x)];
          if (here == none) continue;
          for (std::size_t n : {std::size_t((y - 1) * w + x), std::size_t((y + 1) * w + x), std::size_t(y * w + x - 1),
                                std::size_t(y * w + x + 1)})
            if (v[n] < here) here = v[n], changed = true;
        }
    }
    tile_out = v;
    std::vector<std::uint32_t> border;  // top, bottom, left, right (detail::border_of's order)
    for (index_t x = 1; x <= core.width; ++x) border.push_back(v[std::size_t(1 * w + x)]);
    for (index_t x = 1; x <= core.width; ++x) border.push_back(v[std::size_t(core.height * w + x)]);
    for (index_t y = 1; y <= core.height; ++y) border.push_back(v[std::size_t(y * w + 1)]);
    for (index_t y = 1; y <= core.height; ++y) border.push_back(v[std::size_t(y * w + core.width)]);
    return border;
  };
  for (int ranks = 1; ranks <= 4; ++ranks) {
    std::vector<std::uint32_t> result(inside.size(), none);
    std::mutex result_mutex;
    std::vector<index_t> rounds(static_cast<std::size_t>(ranks));
    on_ranks(ranks, [&](ProcessGroup const& group) {
      detail::Seams<std::uint32_t> seams(grid, none);
      detail::RoundsDone const done = detail::ring_rounds(
          grid, seams, [](index_t t) { return t; },
          [&](index_t t, index_t) {
            std::vector<std::uint32_t> tile;
            std::vector<std::uint32_t> border = solve(seams, t, tile);
            Region const core = grid.core(t);
            std::lock_guard<std::mutex> lock(result_mutex);  // the tile's last computation stays
            for (index_t y = 0; y < core.height; ++y)
              for (index_t x = 0; x < core.width; ++x)
                result[std::size_t((core.y + y) * width + core.x + x)] =
                    tile[std::size_t((y + 1) * (core.width + 2) + x + 1)];
            return border;
          },
          nullptr, {}, 1, ranks > 1 ? &group : nullptr);
      rounds[std::size_t(group.rank())] = done.rounds;
    });
    EXPECT_EQ(result, expected) << ranks << " ranks";
    for (index_t r : rounds) EXPECT_EQ(r, rounds[0]) << "every rank counts the same rounds";
    EXPECT_GT(rounds[0], 2) << "the minima crossed several tiles";
  }
}

TEST(ProcessGroup, AllToAllDeliversEveryMessageToItsRank) {
  on_ranks(4, [](ProcessGroup const& group) {
    std::vector<std::vector<unsigned char>> to_each(4);
    for (int r = 0; r < 4; ++r)  // r + 1 bytes of (sender, receiver), none to rank 2
      if (r != 2) to_each[std::size_t(r)].assign(std::size_t(r + 1), (unsigned char)(16 * group.rank() + r));
    std::vector<std::vector<unsigned char>> const received = group.all_to_all(to_each);
    ASSERT_EQ(received.size(), 4u);
    for (int from = 0; from < 4; ++from) {
      std::size_t const expected = group.rank() == 2 ? 0 : std::size_t(group.rank() + 1);
      ASSERT_EQ(received[std::size_t(from)].size(), expected) << "from " << from;
      for (unsigned char b : received[std::size_t(from)]) EXPECT_EQ(b, 16 * from + group.rank());
    }
  });
}

// A text written by the ranks: their parts in rank order in one file, each written by its rank
// into rank 0's temporary file; an empty part anywhere; nothing under the name when a rank fails.
TEST(ProcessGroup, TextOverRanksIsTheirPartsInRankOrder) {
  std::string const path = scratch_path("text.csv");
  std::string expected;
  std::vector<std::string> parts(3);
  for (int r = 0; r < 3; ++r) {
    if (r == 1) continue;  // rank 1 has no rows
    for (int line = 0; line < 2000 * (r + 1); ++line)
      parts[std::size_t(r)] += std::to_string(r) + "," + std::to_string(line) + "\n";
    expected += parts[std::size_t(r)];
  }
  std::filesystem::remove(path);
  on_ranks(3, [&](ProcessGroup const& group) {
    detail::write_text_over_ranks(&group, path, parts[std::size_t(group.rank())]);
  });
  std::vector<char> const written = bytes_of(path);
  EXPECT_EQ(std::string(written.begin(), written.end()), expected);
  std::filesystem::remove(path);
  std::vector<std::exception_ptr> errors;
  on_ranks(
      3,
      [&](ProcessGroup const& group) {
        detail::write_text_over_ranks(&group, path + (group.rank() == 0 ? "/not-a-folder" : ""), "x");
      },
      &errors);
  for (auto const& e : errors) EXPECT_TRUE(e) << "every rank fails with rank 0";
  EXPECT_FALSE(std::filesystem::exists(path));
}

// A scratch file made with a group: rank 0's name on every rank, created by rank 0 and removed
// when rank 0's object goes; the choices every rank must make alike are rank 0's.
TEST(ProcessGroup, SharedScratchFilesAndChoicesAreRankZeros) {
  std::string const folder = std::filesystem::temp_directory_path().string();
  std::vector<std::string> names(3);
  std::string removed;
  on_ranks(3, [&](ProcessGroup const& group) {
    {
      detail::ScratchFile const file(folder, "shared", &group);
      names[std::size_t(group.rank())] = file.path();
      EXPECT_TRUE(std::filesystem::exists(file.path()));
      EXPECT_EQ(detail::rank0_value(&group, 10 * group.rank() + 7), 7);
      EXPECT_EQ(detail::scratch_write_options(folder, 1.0, &group).tiff_compression, TiffCompression::zstd);
      group.all_gather({});  // every rank has looked before rank 0's object goes
    }
    group.all_gather({});
    if (group.rank() == 1) removed = names[0];
  });
  EXPECT_EQ(names[0], names[1]);
  EXPECT_EQ(names[0], names[2]);
  EXPECT_FALSE(std::filesystem::exists(removed));
}

}  // namespace
}  // namespace gigaseg
