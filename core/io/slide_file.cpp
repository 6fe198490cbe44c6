// Whole-slide images through OpenSlide (image_file.hpp): Aperio SVS, Hamamatsu NDPI/VMS, MIRAX,
// Leica SCN, Philips TIFF, Ventana, Sakura and the other formats OpenSlide knows, read a level at a
// time, whole or by region, as 8-bit RGB.
//
// OpenSlide paints regions in premultiplied ARGB. Pixels are composited over the slide's background
// colour (openslide.background-color, white when the slide names none): out = c + (255 - a) * bg /
// 255, rounded, so an opaque pixel is its colour and a transparent one (outside the scanned area)
// the background, as slide viewers show them.
//
// A read is painted by openslide_read_region calls on up to io_threads() threads, a region of
// 1 Mpixel or more in at least as many bands of whole rows as there are threads:
//   - at a level whose downsample is a whole number (level 0, and the levels of most slides), the
//     region itself: up to 2048 x 2048 painted into the image's own memory, a band a call; a larger
//     one in pieces of at most 2048 x 2048 painted into reused buffers;
//   - at a level whose downsample is not a whole number, OpenSlide places the level's tiles at
//     fractional offsets, so a pixel's value could depend on where a read starts. There reads
//     follow a fixed grid of 1024 x 1024 chunks of the level, each painted whole and cut to the
//     rectangle asked for: a pixel is always painted by the same call, so reading by tiles gives
//     the pixels of reading the level whole.
#include "gigaseg/core/error.hpp"
#include "gigaseg/core/io/image_file.hpp"
#include "gigaseg/core/io/read_ahead.hpp"

#include <openslide.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <list>
#include <memory>
#include <exception>
#include <new>
#include <system_error>
#include <mutex>
#include <thread>
#include <vector>

#include <sys/mman.h>
#include <sys/stat.h>

namespace gigaseg {

namespace {
std::mutex read_options_mutex;
ReadOptions read_options;
}  // namespace

void set_default_read_options(ReadOptions const& options) {
  std::lock_guard<std::mutex> lock(read_options_mutex);
  read_options = options;
}
ReadOptions default_read_options() {
  std::lock_guard<std::mutex> lock(read_options_mutex);
  return read_options;
}

namespace detail {
namespace {

constexpr index_t chunk_side = 1024;

struct SlideCloser {
  void operator()(openslide_t* s) const { openslide_close(s); }
};

// An open slide and what OpenSlide says of it.
// An open slide and what OpenSlide says of it. OpenSlide objects are thread-safe: reads on several
// threads share one.
struct Slide {
  std::unique_ptr<openslide_t, SlideCloser> handle;
  SlideInfo info;
};

// The file's identity: a slide replaced under the same name is opened again.
struct FileKey {
  std::string path;
  dev_t device = 0;
  ino_t inode = 0;
  off_t size = 0;
  std::int64_t modified_ns = 0;
  bool operator==(FileKey const& o) const {
    return path == o.path && device == o.device && inode == o.inode && size == o.size && modified_ns == o.modified_ns;
  }
};

bool file_key(std::string const& path, FileKey& key) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  key = {path, st.st_dev, st.st_ino, st.st_size, std::int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
  return true;
}

// OpenSlide's answer to "which vendor wrote this file", kept for the files asked about most
// recently: the tile engine asks for every tile it reads.
struct VendorCache {
  std::mutex mutex;
  std::list<std::pair<FileKey, std::string>> entries;  // most recent first; "" where OpenSlide names none
};
VendorCache& vendors() {
  static VendorCache cache;
  return cache;
}

// Open slides, most recently used first (opening one parses its whole directory: "a tile server
// should not call openslide_open() on every tile request", openslide.h). A handle whose read failed
// stays in error in OpenSlide and is dropped.
struct SlideCache {
  std::mutex mutex;
  std::list<std::pair<FileKey, std::shared_ptr<Slide>>> entries;
};
SlideCache& slides() {
  static SlideCache cache;
  return cache;
}
constexpr std::size_t cache_entries = 8;

double property_number(openslide_t* s, char const* name) {
  char const* value = openslide_get_property_value(s, name);
  if (value == nullptr) return 0;
  char* end = nullptr;
  double const v = std::strtod(value, &end);
  return end != value && std::isfinite(v) && v > 0 ? v : 0;
}

std::shared_ptr<Slide> open_slide(std::string const& path, std::string const& open_path) {
  FileKey key;
  bool const keyed = file_key(open_path, key);
  auto& cache = slides();
  if (keyed) {
    std::lock_guard<std::mutex> lock(cache.mutex);
    for (auto it = cache.entries.begin(); it != cache.entries.end(); ++it)
      if (it->first == key) {
        cache.entries.splice(cache.entries.begin(), cache.entries, it);
        return it->second;
      }
  }
  auto slide = std::make_shared<Slide>();
  slide->handle.reset(openslide_open(open_path.c_str()));
  GIGASEG_REQUIRE(slide->handle != nullptr, ErrorKind::input, path, "is not a whole-slide image OpenSlide can read");
  openslide_t* s = slide->handle.get();
  if (char const* error = openslide_get_error(s))
    GIGASEG_THROW(ErrorKind::input, path, std::string("OpenSlide cannot read this slide: ") + error);
  SlideInfo& info = slide->info;
  char const* vendor = openslide_get_property_value(s, OPENSLIDE_PROPERTY_NAME_VENDOR);
  info.vendor = vendor != nullptr ? vendor : "";
  int32_t const levels = openslide_get_level_count(s);
  GIGASEG_REQUIRE(levels > 0, ErrorKind::input, path, "OpenSlide finds no level in this slide");
  for (int32_t l = 0; l < levels; ++l) {
    int64_t w = -1, h = -1;
    openslide_get_level_dimensions(s, l, &w, &h);
    double const downsample = openslide_get_level_downsample(s, l);
    GIGASEG_REQUIRE(w > 0 && h > 0 && downsample > 0, ErrorKind::input, path,
                    "OpenSlide gives level " + std::to_string(l) + " no size");
    info.levels.push_back({index_t(w), index_t(h), downsample});
    std::string const tile_key = "openslide.level[" + std::to_string(l) + "].tile-height";
    info.levels.back().tile_height = index_t(property_number(s, tile_key.c_str()));
  }
  info.mpp_x = property_number(s, OPENSLIDE_PROPERTY_NAME_MPP_X);
  info.mpp_y = property_number(s, OPENSLIDE_PROPERTY_NAME_MPP_Y);
  info.objective_power = property_number(s, OPENSLIDE_PROPERTY_NAME_OBJECTIVE_POWER);
  info.background = {255, 255, 255};
  if (char const* colour = openslide_get_property_value(s, OPENSLIDE_PROPERTY_NAME_BACKGROUND_COLOR);
      colour != nullptr && std::strlen(colour) == 6) {
    char* end = nullptr;
    unsigned long const rgb = std::strtoul(colour, &end, 16);
    if (end == colour + 6) info.background = {std::uint8_t(rgb >> 16), std::uint8_t(rgb >> 8), std::uint8_t(rgb)};
  }
  if (char const* const* names = openslide_get_associated_image_names(s))
    for (; *names != nullptr; ++names) info.associated_images.emplace_back(*names);
  if (keyed) {
    std::lock_guard<std::mutex> lock(cache.mutex);
    cache.entries.emplace_front(key, slide);
    if (cache.entries.size() > cache_entries) cache.entries.pop_back();
  }
  return slide;
}

void forget_slide(std::shared_ptr<Slide> const& slide) {
  auto& cache = slides();
  std::lock_guard<std::mutex> lock(cache.mutex);
  cache.entries.remove_if([&](auto const& entry) { return entry.second == slide; });
}

// The buffers OpenSlide paints into, kept for the next read (a fresh buffer's pages fault in one by
// one as OpenSlide writes them, which costs as much as decoding on some virtual machines); a new
// large one is mapped with transparent huge pages asked for, so it faults in 2 MiB at a time.
class PaintBuffer {
 public:
  explicit PaintBuffer(std::size_t pixels) : bytes_(std::max<std::size_t>(pixels * 4, 1)) {
    void* p = ::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    // A hint (where the kernel has none, pages stay small); below 4 MiB zeroing a whole huge page
    // costs more than the faults it saves.
    if (bytes_ >= (std::size_t(4) << 20)) ::madvise(p, bytes_, MADV_HUGEPAGE);
    data_ = static_cast<std::uint32_t*>(p);
  }
  ~PaintBuffer() { ::munmap(data_, bytes_); }
  PaintBuffer(PaintBuffer const&) = delete;
  PaintBuffer& operator=(PaintBuffer const&) = delete;
  std::uint32_t* data() const noexcept { return data_; }
  std::size_t pixels() const noexcept { return bytes_ / 4; }

 private:
  std::size_t bytes_;
  std::uint32_t* data_ = nullptr;
};

struct PaintBuffers {
  std::mutex mutex;
  std::vector<std::unique_ptr<PaintBuffer>> spare;  // at most one a reading thread
};
PaintBuffers& paint_buffers() {
  static PaintBuffers buffers;
  return buffers;
}

// A buffer of at least `pixels`: a spare one that is large enough, else a new one.
std::unique_ptr<PaintBuffer> take_buffer(std::size_t pixels) {
  auto& pool = paint_buffers();
  {
    std::lock_guard<std::mutex> lock(pool.mutex);
    for (auto it = pool.spare.begin(); it != pool.spare.end(); ++it)
      if ((*it)->pixels() >= pixels) {
        std::unique_ptr<PaintBuffer> found = std::move(*it);
        pool.spare.erase(it);
        return found;
      }
  }
  return std::make_unique<PaintBuffer>(pixels);
}
void give_back(std::unique_ptr<PaintBuffer> buffer) {
  auto& pool = paint_buffers();
  std::lock_guard<std::mutex> lock(pool.mutex);
  if (pool.spare.size() < 16) pool.spare.push_back(std::move(buffer));
}

}  // namespace

std::string slide_vendor(std::string const& open_path) {
  FileKey key;
  if (!file_key(open_path, key)) return {};  // a stream's copy: the formats gigaseg reads itself
  auto& cache = vendors();
  {
    std::lock_guard<std::mutex> lock(cache.mutex);
    for (auto it = cache.entries.begin(); it != cache.entries.end(); ++it)
      if (it->first == key) {
        cache.entries.splice(cache.entries.begin(), cache.entries, it);
        return it->second;
      }
  }
  char const* vendor = openslide_detect_vendor(open_path.c_str());
  std::string const found = vendor != nullptr ? vendor : "";
  std::lock_guard<std::mutex> lock(cache.mutex);
  cache.entries.emplace_front(key, found);
  if (cache.entries.size() > 64) cache.entries.pop_back();
  return found;
}

index_t slide_level(std::string const& path, SlideInfo const& info, ReadOptions const& options) {
  if (options.slide_mpp > 0) {
    GIGASEG_REQUIRE(info.mpp_x > 0, ErrorKind::input, path,
                    "the slide does not state its microns per pixel, so no level can be picked by resolution");
    // The level whose resolution is nearest in ratio: |log(mpp_level / mpp)| least, the finer on a tie.
    index_t best = 0;
    double best_distance = 0;
    for (std::size_t l = 0; l < info.levels.size(); ++l) {
      double const distance = std::fabs(std::log(info.mpp_x * info.levels[l].downsample / options.slide_mpp));
      if (l == 0 || distance < best_distance - 1e-12) {
        best = index_t(l);
        best_distance = distance;
      }
    }
    return best;
  }
  GIGASEG_REQUIRE(options.slide_level >= 0 && std::size_t(options.slide_level) < info.levels.size(), ErrorKind::usage,
                  path,
                  "has " + std::to_string(info.levels.size()) + " level" + (info.levels.size() == 1 ? "" : "s") +
                      " (0 to " + std::to_string(info.levels.size() - 1) + "); level " +
                      std::to_string(options.slide_level) + " is not one of them");
  return options.slide_level;
}

SlideInfo read_slide_info(std::string const& path, std::string const& open_path) {
  return open_slide(path, open_path)->info;
}

ImageShape slide_shape(std::string const& path, std::string const& open_path) {
  auto const slide = open_slide(path, open_path);
  index_t const level = slide_level(path, slide->info, default_read_options());
  SlideLevel const& l = slide->info.levels[std::size_t(level)];
  // The decoding unit the engine plans its reads around: the chunk (see above).
  ImageShape shape{l.width, l.height, std::min(chunk_side, l.width), std::min(chunk_side, l.height)};
  shape.microns_per_pixel_x = slide->info.mpp_x * l.downsample;
  shape.microns_per_pixel_y = slide->info.mpp_y * l.downsample;
  return shape;
}

namespace {

// An opaque pixel is its colour; others are composited over the background.
inline Rgb8 to_rgb(std::uint32_t argb, Rgb8 bg) noexcept {
  return argb >> 24 == 255 ? Rgb8{std::uint8_t(argb >> 16), std::uint8_t(argb >> 8), std::uint8_t(argb)}
                           : over_background(argb, bg);
}

// Row edges of `bands` bands of rows of `r`, moved to the slide's own tile rows (multiples of
// `tile_height` where it says them) so that no tile is decoded for two bands; edges that would
// meet are dropped.
std::vector<index_t> band_edges(Region const& r, index_t bands, index_t tile_height) {
  index_t const step = std::max<index_t>(1, tile_height);
  std::vector<index_t> edges{r.y};
  for (index_t b = 1; b < bands; ++b) {
    index_t const edge = (r.y + r.height * b / bands + step / 2) / step * step;
    if (edge > edges.back() && edge < r.y + r.height) edges.push_back(edge);
  }
  edges.push_back(r.y + r.height);
  return edges;
}

// paint(i) for i in [0, count) on up to io_threads() threads (the calling one among them). paint
// returns "" or what OpenSlide said went wrong; the first failure stops the others. An exception of
// a worker (out of memory) is rethrown once every thread has been joined; a failure is returned.
template <class Paint>
std::string paint_in_parallel(index_t count, Paint&& paint) {
  std::atomic<index_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex failure_mutex;
  std::string failure;
  std::exception_ptr thrown;
  auto const worker = [&] {
    try {
      for (index_t c; !failed.load() && (c = next.fetch_add(1)) < count;) {
        std::string error = paint(c);
        if (!error.empty()) {
          std::lock_guard<std::mutex> lock(failure_mutex);
          if (!failed.exchange(true)) failure = std::move(error);
        }
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(failure_mutex);
      if (!thrown) thrown = std::current_exception();
      failed.store(true);
    }
  };
  {
    int const threads = int(std::min<index_t>(count, index_t(io_threads())));
    std::vector<std::thread> pool;
    struct Joiner {  // the threads started are joined however this scope ends
      std::vector<std::thread>& threads;
      ~Joiner() {
        for (auto& thread : threads)
          if (thread.joinable()) thread.join();
      }
    } const joiner{pool};
    try {
      for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
    } catch (std::system_error const&) {  // fewer threads: the others paint the rest
    }
    worker();
  }
  if (thrown) std::rethrow_exception(thrown);
  return failure;
}

}  // namespace

AnyHostImage read_slide(std::string const& path, std::string const& open_path, Region const* region) {
  auto const slide = open_slide(path, open_path);
  index_t const level = slide_level(path, slide->info, default_read_options());
  SlideLevel const& l = slide->info.levels[std::size_t(level)];
  Region const r = region != nullptr ? *region : Region{0, 0, l.width, l.height};
  GIGASEG_REQUIRE(
      r.width > 0 && r.height > 0 && r.x >= 0 && r.y >= 0 && r.x + r.width <= l.width && r.y + r.height <= l.height,
      ErrorKind::usage, path,
      "region " + std::to_string(r.width) + "x" + std::to_string(r.height) + " at " + std::to_string(r.x) + "," +
          std::to_string(r.y) + " is not inside level " + std::to_string(level) + " (" + std::to_string(l.width) + "x" +
          std::to_string(l.height) + ")");
  check_read_size(path, r.width, r.height);
  Rgb8 const bg = slide->info.background;
  openslide_t* const s = slide->handle.get();
  auto const read_failure = [&](char const* error) {
    return "OpenSlide cannot read level " + std::to_string(level) + ": " + error;
  };
  // One band of work per thread for a region of 1 Mpixel or more, else one.
  index_t const threads = r.width * r.height >= (index_t(1) << 20) ? std::min<index_t>(io_threads(), r.height) : 1;
  bool const whole_steps = std::fabs(l.downsample - std::round(l.downsample)) < 1e-9;
  std::string failure;
  HostImage<Rgb8> image;

  if (whole_steps && r.width <= 2048 && r.height <= 2048) {
    // A region up to 2048 x 2048 at a whole-number downsample is painted into the image's own
    // memory, allocated with rows of at least 4 bytes a pixel, in bands of whole rows (one a
    // thread), each turned into RGB in place, its last row first: no second buffer is touched.
    // Band [y0, y1) paints its ARGB rows one after the other from row y0's start; RGB row y starts
    // at pitch x (y - y0) from there, never before its ARGB row (the pitch is at least 4 x width),
    // and ends before row y1, where the next band's pixels start. A row is copied out first.
    HostImage<Rgb8> const wide = new_host_image<Rgb8>("gigaseg::slide", (4 * r.width + 2) / 3, r.height);
    image = wide.roi(0, 0, r.width, r.height);
    std::vector<index_t> const edges = band_edges(r, threads, l.tile_height);
    failure = paint_in_parallel(index_t(edges.size() - 1), [&](index_t b) {
      index_t const y0 = edges[std::size_t(b)], h = edges[std::size_t(b) + 1] - y0;
      Rgb8* const first = image.row(y0 - r.y);  // 128-byte aligned
      auto* const argb = reinterpret_cast<std::uint32_t*>(first);
      openslide_read_region(s, argb, std::int64_t(std::llround(double(r.x) * l.downsample)),
                            std::int64_t(std::llround(double(y0) * l.downsample)), std::int32_t(level), r.width, h);
      if (char const* error = openslide_get_error(s)) return read_failure(error);
      std::vector<std::uint32_t> row(std::size_t(r.width));
      for (index_t y = h - 1; y >= 0; --y) {
        std::copy_n(argb + y * r.width, r.width, row.data());
        Rgb8* out = image.row(y0 - r.y + y);
        for (index_t x = 0; x < r.width; ++x) out[x] = to_rgb(row[std::size_t(x)], bg);
      }
      return std::string();
    });
  } else {
    image = new_host_image<Rgb8>("gigaseg::slide", r.width, r.height);
    // The pieces painted, in the level's pixels, each into a reused buffer and copied out.
    std::vector<Region> pieces;
    if (whole_steps) {
      // At least as many bands as threads, none taller than 2048 rows, cut into 2048-wide pieces.
      std::vector<index_t> const edges = band_edges(r, std::max((r.height + 2047) / 2048, threads), l.tile_height);
      for (std::size_t b = 0; b + 1 < edges.size(); ++b)
        for (index_t y = edges[b]; y < edges[b + 1]; y += 2048)
          for (index_t x = r.x; x < r.x + r.width; x += 2048)
            pieces.push_back(
                {x, y, std::min<index_t>(2048, r.x + r.width - x), std::min<index_t>(2048, edges[b + 1] - y)});
    } else {
      for (index_t gy = r.y / chunk_side * chunk_side; gy < r.y + r.height; gy += chunk_side)
        for (index_t gx = r.x / chunk_side * chunk_side; gx < r.x + r.width; gx += chunk_side)
          pieces.push_back({gx, gy, std::min(chunk_side, l.width - gx), std::min(chunk_side, l.height - gy)});
    }
    failure = paint_in_parallel(index_t(pieces.size()), [&](index_t c) {
      Region const& p = pieces[std::size_t(c)];
      // OpenSlide writes every pixel of the buffer: it is not filled first.
      std::unique_ptr<PaintBuffer> buffer = take_buffer(std::size_t(p.width * p.height));
      struct Return {  // the buffer goes back to the pool however this piece ends
        std::unique_ptr<PaintBuffer>& buffer;
        ~Return() { give_back(std::move(buffer)); }
      } const back{buffer};
      std::uint32_t* const argb = buffer->data();
      // The piece's origin in level 0's frame, as OpenSlide takes it.
      openslide_read_region(s, argb, std::int64_t(std::llround(double(p.x) * l.downsample)),
                            std::int64_t(std::llround(double(p.y) * l.downsample)), std::int32_t(level), p.width,
                            p.height);
      if (char const* error = openslide_get_error(s)) return read_failure(error);
      // The piece's part inside the region.
      index_t const x0 = std::max(p.x, r.x), x1 = std::min(p.x + p.width, r.x + r.width);
      index_t const y0 = std::max(p.y, r.y), y1 = std::min(p.y + p.height, r.y + r.height);
      for (index_t y = y0; y < y1; ++y) {
        std::uint32_t const* in = argb + (y - p.y) * p.width + (x0 - p.x);
        Rgb8* out = &image(y - r.y, x0 - r.x);
        for (index_t x = x0; x < x1; ++x) *out++ = to_rgb(*in++, bg);
      }
      return std::string();
    });
  }
  if (!failure.empty()) {
    forget_slide(slide);  // OpenSlide keeps a handle in error for good
    GIGASEG_THROW(ErrorKind::input, path, failure);
  }
  return AnyHostImage(std::move(image));
}

}  // namespace detail
}  // namespace gigaseg
