// The tile engine's reads (detail::TileReader) and its way in for files that cannot be read by
// region (TiledInput, engine/tiled.hpp).
#include "gigaseg/engine/tile_reader.hpp"
#include "gigaseg/engine/tiled.hpp"
#include "gigaseg/core/error.hpp"

#include <fcntl.h>
#include <limits.h>
#include <sys/statvfs.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <exception>
#include <string>
#include <utility>
#include <vector>

namespace gigaseg::detail {

TileReader::TileReader(std::string path, ImageShape const& shape, index_t tile_width, index_t tile_height)
    : path_(std::move(path)),
      shape_(shape),
      tile_width_(tile_width),
      tile_height_(tile_height),
      banded_(shape.block_width > tile_width || shape.block_height > tile_height) {}

int TileReader::concurrent_reads(int threads) const {
  if (banded_ || threads <= 1) return 1;
  auto blocks = [](index_t tile, index_t block) { return block > 0 ? (tile + block - 1) / block : 1; };
  index_t const per_tile = blocks(tile_width_, shape_.block_width) * blocks(tile_height_, shape_.block_height);
  return int(std::clamp<index_t>(index_t(threads) / std::max<index_t>(per_tile, 1), 2, threads));
}

AnyHostImage TileReader::read(Region const& region) {
  if (!banded_) return read_image_region(path_, region);
  bool const inside = band_.height > 0 && region.y >= band_.y && region.y + region.height <= band_.y + band_.height;
  if (!inside) {
    index_t const rows = std::max<index_t>(1, shape_.block_height);
    index_t const y0 = region.y / rows * rows;
    index_t const y1 = std::min(shape_.height, (region.y + region.height + rows - 1) / rows * rows);
    // At most 4 bytes a pixel (32-bit gray and float; RGB takes 3): a bound for this check only.
    if (double(y1 - y0) * double(shape_.width) * 4.0 > band_limit_bytes) return read_image_region(path_, region);
    band_pixels_ = AnyHostImage();  // the band above is released before the next is read
    band_ = Region{0, y0, shape_.width, y1 - y0};
    band_pixels_ = read_image_region(path_, band_);
  }
  return std::visit(
      [&](auto const& band) {
        using Image = std::decay_t<decltype(band)>;
        Image part("gigaseg::tiled::tile", region.width, region.height);
        std::size_t const row_bytes = std::size_t(region.width) * sizeof(typename Image::value_type);
        for (index_t y = 0; y < region.height; ++y)
          std::memcpy(part.row(y), &band(region.y - band_.y + y, region.x), row_bytes);
        return AnyHostImage(std::move(part));
      },
      band_pixels_);
}

ScratchFile::ScratchFile(std::string const& folder, char const* tag) {
  static std::atomic<unsigned> made{0};
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0 || host[0] == 0) std::strcpy(host, "host");
  for (char* c = host; *c != 0; ++c)
    if (*c == '/') *c = '_';
  path_ = (folder.empty() ? std::string(".") : folder) + "/.gigaseg-scratch-" + host + "-" +
          std::to_string(::getpid()) + "-" + std::to_string(made.fetch_add(1)) + "-" + tag + ".tif";
}

ScratchFile::ScratchFile(std::string const& folder, char const* tag, ProcessGroup const* group)
    : ScratchFile(folder, tag) {
  if (group_size(group) <= 1) return;
  owner_ = group->rank() == 0;
  std::exception_ptr failed;
  if (owner_) {
    try {
      int const fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
      GIGASEG_REQUIRE(fd >= 0, ErrorKind::resource, path_, std::string("cannot be created: ") + std::strerror(errno));
      ::close(fd);
    } catch (...) {
      failed = std::current_exception();
    }
  }
  agree(group, failed);
  std::vector<unsigned char> name;
  if (owner_) name.assign(path_.begin(), path_.end());
  std::vector<std::vector<unsigned char>> const all = group->all_gather(name);
  path_.assign(all[0].begin(), all[0].end());
  try {
    GIGASEG_REQUIRE(owner_ || ::access(path_.c_str(), F_OK) == 0, ErrorKind::usage,
                    folder.empty() ? std::string(".") : folder,
                    "is not shared by the ranks (rank " + std::to_string(group->rank()) +
                        " does not see rank 0's scratch files there); give an output in a folder every rank sees");
  } catch (...) {
    failed = std::current_exception();
  }
  try {
    agree(group, failed);
  } catch (...) {
    if (owner_) ::unlink(path_.c_str());
    throw;
  }
}

ScratchFile::~ScratchFile() {
  if (owner_) ::unlink(path_.c_str());
}

TileStoreFile::TileStoreFile(std::string const& folder, char const* tag, std::size_t slot_bytes)
    : file_(folder, tag), slot_bytes_(slot_bytes) {
  fd_ = ::open(file_.path().c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  GIGASEG_REQUIRE(fd_ >= 0, ErrorKind::resource, file_.path(),
                  std::string("cannot be created: ") + std::strerror(errno));
}

TileStoreFile::~TileStoreFile() {
  if (fd_ >= 0) ::close(fd_);
}

namespace {
// Rows `pitch` bytes apart in memory to or from consecutive bytes of `fd` from `at`, in calls of
// up to IOV_MAX rows (pwritev / preadv), resumed after a partial transfer. false on a failure
// (errno set; ENOSPC for a write that wrote nothing, EIO for a read past the end).
template <bool Write>
bool transfer_rows(int fd, char* first, index_t rows, std::size_t row_bytes, std::size_t pitch, off_t at) {
  std::vector<iovec> pieces;
  for (index_t y = 0; y < rows;) {
    index_t const batch = std::min<index_t>(rows - y, IOV_MAX);
    pieces.clear();
    for (index_t r = 0; r < batch; ++r) pieces.push_back(iovec{first + std::size_t(y + r) * pitch, row_bytes});
    std::size_t left = std::size_t(batch) * row_bytes;
    std::size_t piece = 0;
    while (left > 0) {
      ssize_t const done = Write ? ::pwritev(fd, &pieces[piece], int(pieces.size() - piece), at)
                                 : ::preadv(fd, &pieces[piece], int(pieces.size() - piece), at);
      if (done <= 0) {
        if (done == 0) errno = Write ? ENOSPC : EIO;
        if (done < 0 && errno == EINTR) continue;
        return false;
      }
      at += done, left -= std::size_t(done);
      for (std::size_t moved = std::size_t(done); moved > 0;) {  // skip what was moved
        if (moved >= pieces[piece].iov_len) {
          moved -= pieces[piece].iov_len;
          ++piece;
        } else {
          pieces[piece].iov_base = static_cast<char*>(pieces[piece].iov_base) + moved;
          pieces[piece].iov_len -= moved;
          moved = 0;
        }
      }
    }
    y += batch;
  }
  return true;
}
}  // namespace

void TileStoreFile::put(index_t t, void const* first, index_t rows, std::size_t row_bytes, std::size_t pitch) {
  GIGASEG_REQUIRE(std::size_t(rows) * row_bytes <= slot_bytes_, ErrorKind::internal, file_.path(),
                  "a tile larger than its slot");
  GIGASEG_REQUIRE(transfer_rows<true>(fd_, static_cast<char*>(const_cast<void*>(first)), rows, row_bytes, pitch,
                                      off_t(std::size_t(t) * slot_bytes_)),
                  ErrorKind::resource, file_.path(), std::string("cannot be written: ") + std::strerror(errno));
}

void TileStoreFile::get(index_t t, void* first, index_t rows, std::size_t row_bytes, std::size_t pitch) const {
  GIGASEG_REQUIRE(
      transfer_rows<false>(fd_, static_cast<char*>(first), rows, row_bytes, pitch, off_t(std::size_t(t) * slot_bytes_)),
      ErrorKind::internal, file_.path(), std::string("cannot be read back: ") + std::strerror(errno));
}

WriteOptions scratch_write_options(std::string const& folder, double bytes, ProcessGroup const* group) {
  WriteOptions write;
  write.tiff_compression = TiffCompression::none;
  struct statvfs disk {};
  if (group_size(group) > 1 ||
      (::statvfs(folder.c_str(), &disk) == 0 && bytes > 0.5 * double(disk.f_bavail) * double(disk.f_frsize))) {
    write.tiff_compression = TiffCompression::zstd;
    write.tiff_predictor = true;  // scratch is read back by libtiff alone: the smaller files
    write.compression_level = 1;
  }
  return write;
}

std::string folder_of(std::string const& path) {
  auto const slash = path.find_last_of('/');
  return slash == std::string::npos ? std::string(".") : slash == 0 ? std::string("/") : path.substr(0, slash);
}

}  // namespace gigaseg::detail

namespace gigaseg {

TiledInput::TiledInput(std::string const& input, std::string const& scratch_folder, TiledOptions const& options)
    : path_(input) {
  ImageFormat const format = detect_format(input);
  if (format == ImageFormat::tiff || format == ImageFormat::fits || format == ImageFormat::slide ||
      format == ImageFormat::zarr)
    return;  // read by region as they are
  scratch_ = std::make_unique<detail::ScratchFile>(scratch_folder, "input");
  std::string const& scratch = scratch_->path();
  WriteOptions write;
  write.tiff_compression = TiffCompression::deflate;
  write.tiff_predictor = true;  // scratch is read back by libtiff alone: the smaller files
  write.compression_level = 1;
  write_tiled_copy(input, scratch, options.tile_width, options.tile_height, write);
  path_ = scratch;
}

TiledInput::~TiledInput() = default;

}  // namespace gigaseg
