// Processes sharing the work on one image (engine/process_group.hpp).
#include "gigaseg/engine/process_group.hpp"

#include "gigaseg/core/io/atomic_file.hpp"
#include "gigaseg/engine/tile_reader.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>

namespace gigaseg {

std::vector<std::vector<unsigned char>> ProcessGroup::all_to_all(
    std::vector<std::vector<unsigned char>> const& to_each) const {
  GIGASEG_REQUIRE(to_each.size() == std::size_t(size()), ErrorKind::internal, "ProcessGroup::all_to_all",
                  "needs one message a rank");
  std::vector<std::vector<unsigned char>> received(to_each.size());
  for (int r = 0; r < size(); ++r)
    if (r != rank()) send(r, to_each[std::size_t(r)]);
  for (int r = 0; r < size(); ++r) received[std::size_t(r)] = r == rank() ? to_each[std::size_t(r)] : receive(r);
  return received;
}

}  // namespace gigaseg

namespace gigaseg::detail {

void ByteReader::take(void* to, std::size_t n) {
  GIGASEG_REQUIRE(at_ + n <= bytes_.size(), ErrorKind::internal, "process group",
                  "a message shorter than its contents");
  std::memcpy(to, bytes_.data() + at_, n);
  at_ += n;
}

namespace {

// A file descriptor, closed when this goes.
struct Descriptor {
  int fd = -1;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

// `n` bytes written at `offset` of `fd`, the file of the output `path`: a failure is
// throw_write_failure's error with `what`.
void write_at(int fd, void const* data, std::size_t n, std::uint64_t offset, std::string const& path,
              char const* what) {
  auto const* bytes = static_cast<unsigned char const*>(data);
  std::size_t done = 0;
  while (done < n) {
    ssize_t const written = ::pwrite(fd, bytes + done, n - done, off_t(offset + done));
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) throw_write_failure(path, what, written == 0 ? ENOSPC : errno);
    done += std::size_t(written);
  }
}

// An error as it travels between ranks: failed, kind, subject and reason, then whether it is an
// allocation that failed (1: an OutOfMemory, or a std::bad_alloc of unknown size, with its bytes
// and memory space, which the other ranks report as such, naming the rank it failed on; 2: Kokkos's
// report of a view it could not allocate, whose text the other ranks throw again as it is), so that
// every rank ends with the same exit code.
std::vector<unsigned char> error_message(std::exception_ptr failed) {
  std::vector<unsigned char> bytes;
  std::uint8_t const is_failed = failed ? 1 : 0;
  append_bytes(bytes, &is_failed, 1);
  if (!failed) return bytes;
  ErrorKind kind = ErrorKind::internal;
  std::string subject, reason, space;
  std::uint8_t allocation = 0;
  std::uint64_t allocation_bytes = 0;
  try {
    std::rethrow_exception(failed);
  } catch (OutOfMemory const& e) {
    kind = e.kind();
    subject = e.subject();
    reason = e.reason();
    allocation = 1;
    allocation_bytes = e.bytes();
    space = e.memory_space();
  } catch (Error const& e) {
    kind = e.kind();
    subject = e.subject();
    reason = e.reason();
  } catch (std::bad_alloc const&) {
    kind = ErrorKind::resource;
    reason = "out of host memory";
    allocation = 1;
    space = "Host";
  } catch (std::exception const& e) {
    reason = e.what();
    if (is_kokkos_allocation_failure(reason)) {
      kind = ErrorKind::resource;
      allocation = 2;
    }
  } catch (...) {
    reason = "unknown failure";
  }
  std::int32_t const k = std::int32_t(kind);
  append_bytes(bytes, &k, 1);
  append_bytes(bytes, std::vector<char>(subject.begin(), subject.end()));
  append_bytes(bytes, std::vector<char>(reason.begin(), reason.end()));
  append_bytes(bytes, &allocation, 1);
  append_bytes(bytes, &allocation_bytes, 1);
  append_bytes(bytes, std::vector<char>(space.begin(), space.end()));
  return bytes;
}

}  // namespace

void agree(ProcessGroup const* group, std::exception_ptr failed) {
  if (group_size(group) <= 1) {
    if (failed) std::rethrow_exception(failed);
    return;
  }
  std::vector<std::vector<unsigned char>> const all = group->all_gather(error_message(failed));
  for (std::size_t r = 0; r < all.size(); ++r) {
    ByteReader in(all[r]);
    if (in.value<std::uint8_t>() == 0) continue;
    if (int(r) == group->rank()) std::rethrow_exception(failed);
    auto const kind = ErrorKind(in.value<std::int32_t>());
    std::vector<char> const subject = in.values<char>();
    std::vector<char> const reason = in.values<char>();
    auto const allocation = in.value<std::uint8_t>();
    auto const allocation_bytes = in.value<std::uint64_t>();
    std::vector<char> const space = in.values<char>();
    if (allocation == 2) throw std::runtime_error(std::string(reason.begin(), reason.end()));
    if (allocation != 0)
      throw OutOfMemory(std::string(subject.begin(), subject.end()), std::size_t(allocation_bytes),
                        std::string(space.begin(), space.end()), __FILE__, __LINE__, int(r));
    throw Error(kind, std::string(subject.begin(), subject.end()), std::string(reason.begin(), reason.end()));
  }
}

// A rank's encoded tiles, appended to a scratch file beside the output until commit().
struct SharedTileWriter::Spill {
  ScratchFile file;
  int fd = -1;
  std::mutex mutex;
  off_t end = 0;
  struct Entry {
    std::int64_t tile;
    off_t at;
    std::size_t size;
  };
  std::vector<Entry> entries;
  std::vector<unsigned char> read(Entry const& entry) const;
  explicit Spill(std::string const& folder) : file(folder, "rank-tiles") {
    fd = ::open(file.path().c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    GIGASEG_REQUIRE(fd >= 0, ErrorKind::resource, file.path(),
                    std::string("cannot be created: ") + std::strerror(errno));
  }
  ~Spill() {
    if (fd >= 0) ::close(fd);
  }
};

SharedTileWriter::SharedTileWriter(ProcessGroup const* group, std::string const& path, index_t width, index_t height,
                                   PixelType type, index_t tile_width, index_t tile_height, WriteOptions const& options)
    : group_(group_size(group) > 1 ? group : nullptr), path_(path) {
  if (is_ome_zarr_name(path)) {
    // Rank 0's temporary folder, named to the others, who write into it.
    std::string temp;
    collectively(group_, [&] {
      if (group_rank(group_) == 0)
        zarr_ = std::make_unique<ZarrTileWriter>(path, width, height, type, tile_width, tile_height, options);
    });
    if (zarr_) temp = zarr_->temp_path();
    std::vector<unsigned char> named(temp.begin(), temp.end());
    if (group_ != nullptr) named = group_->all_gather(named)[0];
    collectively(group_, [&] {
      if (!zarr_)
        zarr_ = std::make_unique<ZarrTileWriter>(path, width, height, type, tile_width, tile_height, options,
                                                 std::string(named.begin(), named.end()));
    });
    return;
  }
  if (group_rank(group_) == 0) {
    writer_ = std::make_unique<TiffTileWriter>(path, width, height, type, tile_width, tile_height, options);
  } else {
    encoder_ = std::make_unique<TiffTileEncoder>(path, width, height, type, tile_width, tile_height, options);
    spill_ = std::make_unique<Spill>(folder_of(path));
  }
}

SharedTileWriter::~SharedTileWriter() = default;

void SharedTileWriter::write_tile(index_t column, index_t row, AnyHostImage const& pixels) {
  if (zarr_) return zarr_->write_tile(column, row, pixels);
  if (writer_) return writer_->write_tile(column, row, pixels);
  thread_local std::vector<unsigned char> bytes;
  encoder_->encode(column, row, pixels, bytes);
  std::lock_guard<std::mutex> lock(spill_->mutex);
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t const n = ::pwrite(spill_->fd, bytes.data() + done, bytes.size() - done, spill_->end + off_t(done));
    if (n < 0 && errno == EINTR) continue;
    GIGASEG_REQUIRE(n > 0, ErrorKind::resource, path_,
                    std::string("cannot keep a tile in scratch: ") + std::strerror(n == 0 ? ENOSPC : errno));
    done += std::size_t(n);
  }
  spill_->entries.push_back({std::int64_t(row * encoder_->tiles_across() + column), spill_->end, bytes.size()});
  spill_->end += off_t(bytes.size());
}

// A spilled tile's bytes, read back from the scratch file.
std::vector<unsigned char> SharedTileWriter::Spill::read(Entry const& entry) const {
  std::vector<unsigned char> bytes(entry.size);
  std::size_t done = 0;
  while (done < entry.size) {
    ssize_t const n = ::pread(fd, bytes.data() + done, entry.size - done, entry.at + off_t(done));
    if (n < 0 && errno == EINTR) continue;
    GIGASEG_REQUIRE(n > 0, ErrorKind::resource, file.path(),
                    "cannot read back a tile: " + std::string(std::strerror(n == 0 ? EIO : errno)));
    done += std::size_t(n);
  }
  return bytes;
}

bool SharedTileWriter::commit_in_place() {
  // Rank 0's temporary file, which the other ranks open where they share the output's folder.
  std::vector<unsigned char> named;
  if (writer_) {
    bool const ome = is_ome_tiff_name(path_);  // rank 0 makes the pyramid from the file: it writes them all
    std::string const temp = ome ? std::string() : writer_->temp_path();
    append_bytes(named, std::vector<char>(temp.begin(), temp.end()));
  }
  std::vector<char> const temp = ByteReader(group_->all_gather(named)[0]).values<char>();
  Descriptor out;
  if (!temp.empty() && !writer_) out.fd = ::open(std::string(temp.begin(), temp.end()).c_str(), O_WRONLY | O_CLOEXEC);
  std::uint64_t missing = !temp.empty() && !writer_ && out.fd < 0 ? 1 : 0;
  group_->sum(&missing, 1);
  if (temp.empty() || missing > 0) return false;
  index_t const tiles_across = writer_ ? writer_->tiles_across() : encoder_->tiles_across();
  // Every rank's tiles and their sizes; rank 0 leaves room for the others' and says where.
  std::vector<std::uint64_t> listed;
  if (spill_)
    for (Spill::Entry const& entry : spill_->entries)
      listed.push_back(std::uint64_t(entry.tile)), listed.push_back(entry.size);
  std::vector<unsigned char> bytes;
  append_bytes(bytes, listed);
  std::vector<std::vector<unsigned char>> const lists = group_->all_gather(bytes);
  std::vector<std::uint64_t> placed;  // (tile, offset) of every reserved tile, from rank 0
  collectively(group_, [&] {
    if (!writer_) return;
    std::vector<std::uint64_t> others;  // (tile, size) of every other rank's tile
    for (int r = 1; r < group_->size(); ++r) {
      std::vector<std::uint64_t> const theirs = ByteReader(lists[std::size_t(r)]).values<std::uint64_t>();
      others.insert(others.end(), theirs.begin(), theirs.end());
    }
    for (std::size_t k = 0; k + 1 < others.size(); k += 2)
      writer_->reserve_tile(index_t(others[k]) % tiles_across, index_t(others[k]) / tiles_across, others[k + 1]);
    // Every tile is in the file now (written or reserved): each has its offset.
    for (std::size_t k = 0; k + 1 < others.size(); k += 2)
      placed.push_back(others[k]),
          placed.push_back(writer_->tile_offset(index_t(others[k]) % tiles_across, index_t(others[k]) / tiles_across));
  });
  bytes.clear();
  append_bytes(bytes, placed);
  std::vector<std::uint64_t> const offsets = ByteReader(group_->all_gather(bytes)[0]).values<std::uint64_t>();
  // Each rank copies its tiles from its scratch into their places and flushes them to disk before
  // rank 0 writes the directory and renames the file.
  collectively(group_, [&] {
    if (writer_) return;
    std::map<std::uint64_t, std::uint64_t> where;
    for (std::size_t k = 0; k + 1 < offsets.size(); k += 2) where[offsets[k]] = offsets[k + 1];
    for (Spill::Entry const& entry : spill_->entries) {
      std::vector<unsigned char> const tile = spill_->read(entry);
      write_at(out.fd, tile.data(), tile.size(), where.at(std::uint64_t(entry.tile)), path_, "cannot write a tile");
    }
    if (::fsync(out.fd) != 0) throw_write_failure(path_, "cannot flush the tiles", errno);
  });
  collectively(group_, [&] {
    if (writer_) writer_->commit();
  });
  return true;
}

void SharedTileWriter::commit() {
  if (zarr_) {  // every rank's chunks are flushed as written: rank 0 checks them all and commits
    agree(group_, nullptr);
    collectively(group_, [&] {
      if (group_rank(group_) == 0) zarr_->commit();
    });
    return;
  }
  if (group_ == nullptr) return writer_->commit();
  if (commit_in_place()) return;
  // Every rank but 0 sends one message per tile it owns (the tile's index and bytes, or -1 and
  // the reason it could not be read back), so that rank 0 receives as many as were promised
  // whatever failed; rank 0 writes them and then commits.
  std::exception_ptr failed;
  index_t const tiles_across = writer_ ? writer_->tiles_across() : encoder_->tiles_across();
  // How many tiles each rank computed (any share of the grid).
  std::vector<unsigned char> mine;
  std::uint64_t const count = spill_ ? spill_->entries.size() : 0;
  append_bytes(mine, &count, 1);
  std::vector<std::vector<unsigned char>> const counts = group_->all_gather(mine);
  if (group_->rank() != 0) {
    for (Spill::Entry const& entry : spill_->entries) {
      std::vector<unsigned char> message;
      std::int64_t tile = entry.tile;
      std::vector<unsigned char> bytes;
      if (!failed) {
        try {
          bytes = spill_->read(entry);
        } catch (...) {
          failed = std::current_exception();
        }
      }
      if (failed) tile = -1, bytes.clear();
      append_bytes(message, &tile, 1);
      message.insert(message.end(), bytes.begin(), bytes.end());
      group_->send(0, message);
    }
    agree(group_, failed);   // the tiles' transfer
    agree(group_, nullptr);  // rank 0's commit
    return;
  }
  for (int r = 1; r < group_->size(); ++r) {
    std::uint64_t const theirs = ByteReader(counts[std::size_t(r)]).value<std::uint64_t>();
    for (std::uint64_t k = 0; k < theirs; ++k) {
      std::vector<unsigned char> const message = group_->receive(r);
      if (failed) continue;
      try {
        ByteReader in(message);
        std::int64_t const tile = in.value<std::int64_t>();
        if (tile < 0) continue;  // the rank that sent it reports why
        writer_->write_encoded_tile(index_t(tile) % tiles_across, index_t(tile) / tiles_across,
                                    message.data() + sizeof(std::int64_t), message.size() - sizeof(std::int64_t));
      } catch (...) {
        failed = std::current_exception();
      }
    }
  }
  agree(group_, failed);
  collectively(group_, [&] { writer_->commit(); });
}

void write_text_over_ranks(ProcessGroup const* group, std::string const& path, std::string const& text) {
  if (group_size(group) <= 1) return write_text_file(path, text);
  bool const first = group->rank() == 0;
  std::unique_ptr<AtomicOutput> output;  // rank 0's
  Descriptor file;
  collectively(group, [&] {
    if (!first) return;
    output = std::make_unique<AtomicOutput>(path);
    file.fd = ::open(output->temp_path().c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (file.fd < 0) throw_write_failure(path, "cannot create", errno);
  });
  // Rank 0's temporary file, which the others open where they share its folder, and where each
  // rank's part begins.
  std::vector<unsigned char> named;
  if (first) append_bytes(named, std::vector<char>(output->temp_path().begin(), output->temp_path().end()));
  std::vector<char> const temp = ByteReader(group->all_gather(named)[0]).values<char>();
  std::uint64_t const size = text.size();
  std::vector<unsigned char> sized;
  append_bytes(sized, &size, 1);
  std::uint64_t offset = 0;
  std::vector<std::vector<unsigned char>> const sizes = group->all_gather(sized);
  for (int r = 0; r < group->rank(); ++r) offset += ByteReader(sizes[std::size_t(r)]).value<std::uint64_t>();
  if (!first) file.fd = ::open(std::string(temp.begin(), temp.end()).c_str(), O_WRONLY | O_CLOEXEC);
  std::uint64_t missing = file.fd < 0 ? 1 : 0;
  group->sum(&missing, 1);
  if (missing == 0) {
    // Each rank writes its part in place and flushes it before rank 0 renames the file.
    collectively(group, [&] {
      write_at(file.fd, text.data(), text.size(), offset, path, "cannot write");
      if (!first && ::fsync(file.fd) != 0) throw_write_failure(path, "cannot flush", errno);
    });
  } else {
    // A folder the ranks do not share: the parts go to rank 0, which writes them.
    std::exception_ptr failed;
    if (!first) {
      try {
        group->send(0, std::vector<unsigned char>(text.begin(), text.end()));
      } catch (...) {  // (a part too large for one message): rank 0 still gets one, and agree() says why
        failed = std::current_exception();
        group->send(0, {});
      }
    } else {
      std::uint64_t at = 0;
      for (int r = 0; r < group->size(); ++r) {
        std::vector<unsigned char> const part =
            r == 0 ? std::vector<unsigned char>(text.begin(), text.end()) : group->receive(r);
        if (failed) continue;
        try {
          write_at(file.fd, part.data(), part.size(), at, path, "cannot write");
        } catch (...) {
          failed = std::current_exception();
        }
        at += part.size();
      }
    }
    agree(group, failed);
  }
  collectively(group, [&] {
    if (first) output->commit();
  });
}

}  // namespace gigaseg::detail
