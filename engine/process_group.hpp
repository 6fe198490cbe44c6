#pragma once
// Processes sharing the work on one image: the ranks of an MPI job as the tiled drivers see them.
//
// The drivers of engine/tiled.hpp take an optional group (TiledOptions::group). With one, each rank
// computes its own share of the tiles (owned_tiles: a run of whole tiles in raster order, so that
// a rank reads neighbouring blocks of the file), the passes meet where the image's global state is
// made (the histogram summed over the ranks, the labelling's tile edges gathered and the joins
// across them shared so that every rank numbers the components alike), and the ranks' encoded
// tiles make one output file (SharedTileWriter: each rank writes its own into it where the ranks
// share its folder). The result is the single process's, byte for byte. The transport is the
// group's: engine/mpi/mpi_group.hpp wraps an MPI communicator; nothing here needs MPI.
#include "gigaseg/core/error.hpp"
#include "gigaseg/core/image.hpp"
#include "gigaseg/core/io/tile_writer.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace gigaseg {

// Hands out the numbers 0 .. limit-1, each once over all the ranks of a group, first come first
// served: work given to whichever rank asks next (ProcessGroup::work_counter).
class WorkCounter {
 public:
  virtual ~WorkCounter() = default;
  // The next number not taken yet by any rank, or `limit` when all are taken. From the thread
  // that made the counter.
  virtual std::size_t next() = 0;
};

// A fixed set of processes, ranks 0..size-1, that call the collective operations in the same order.
class ProcessGroup {
 public:
  virtual ~ProcessGroup() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Collective: every rank's `mine`, indexed by rank, on every rank.
  virtual std::vector<std::vector<unsigned char>> all_gather(std::vector<unsigned char> const& mine) const = 0;
  // Collective: `values` summed element by element over the ranks, in place on every rank.
  virtual void sum(std::uint64_t* values, std::size_t count) const = 0;
  // Point to point, from the calling thread: bytes sent to rank `to`, and those rank `from` sent.
  virtual void send(int to, std::vector<unsigned char> const& bytes) const = 0;
  virtual std::vector<unsigned char> receive(int from) const = 0;
  // Collective: to_each[r] (one entry a rank) goes to rank r; returns what each rank sent this one,
  // indexed by rank. This implementation sends every message, then receives: a group whose send
  // waits for its receive (MPI's for large messages) overrides it.
  virtual std::vector<std::vector<unsigned char>> all_to_all(
      std::vector<std::vector<unsigned char>> const& to_each) const;
  // The bytes this rank has sent so far (each all_gather counts its contribution once for every
  // other rank, as a ring or a tree would send it): the communication a run costs.
  virtual std::uint64_t bytes_sent() const { return 0; }
  // Collective: a counter of 0 .. limit-1 shared by the ranks. Its destruction is collective too:
  // it ends once every rank is done with it.
  virtual std::unique_ptr<WorkCounter> work_counter(std::size_t limit) const = 0;
};

namespace detail {

// The ranks of `group`, 1 without one.
inline int group_size(ProcessGroup const* group) { return group != nullptr ? group->size() : 1; }
inline int group_rank(ProcessGroup const* group) { return group != nullptr ? group->rank() : 0; }

// The tiles 0..tiles-1 that rank `rank` of `ranks` computes: an even run in raster order.
inline std::vector<std::size_t> owned_tiles(std::size_t tiles, int rank, int ranks) {
  std::size_t const first = tiles * std::size_t(rank) / std::size_t(ranks);
  std::size_t const last = tiles * std::size_t(rank + 1) / std::size_t(ranks);
  std::vector<std::size_t> mine;
  for (std::size_t t = first; t < last; ++t) mine.push_back(t);
  return mine;
}
inline std::vector<std::size_t> owned_tiles(std::size_t tiles, ProcessGroup const* group) {
  return owned_tiles(tiles, group_rank(group), group_size(group));
}

// Trivially copyable values as bytes and back, for the group's messages.
template <class T>
void append_bytes(std::vector<unsigned char>& bytes, T const* values, std::size_t count) {
  static_assert(std::is_trivially_copyable<T>::value, "only plain values travel as bytes");
  std::size_t const at = bytes.size();
  bytes.resize(at + count * sizeof(T));
  if (count > 0) std::memcpy(bytes.data() + at, values, count * sizeof(T));
}
template <class T>
void append_bytes(std::vector<unsigned char>& bytes, std::vector<T> const& values) {
  std::uint64_t const count = values.size();
  append_bytes(bytes, &count, 1);
  append_bytes(bytes, values.data(), values.size());
}
// Reads back what append_bytes wrote, in the same order, from `at` on.
class ByteReader {
 public:
  explicit ByteReader(std::vector<unsigned char> const& bytes) : bytes_(bytes) {}
  template <class T>
  T value() {
    T v;
    take(&v, sizeof(T));
    return v;
  }
  template <class T>
  std::vector<T> values() {
    std::vector<T> v(std::size_t(value<std::uint64_t>()));
    if (!v.empty()) take(v.data(), v.size() * sizeof(T));
    return v;
  }
  // Whether every byte has been read.
  bool done() const noexcept { return at_ >= bytes_.size(); }

 private:
  void take(void* to, std::size_t n);
  std::vector<unsigned char> const& bytes_;
  std::size_t at_ = 0;
};

// Collective: rank 0's `value` on every rank, for the choices every rank must make alike (a
// scratch image's compression, a band height) where the rank's own view (its free disk, its
// threads) could differ. Without a group, `value`.
template <class T>
T rank0_value(ProcessGroup const* group, T const& value) {
  if (group_size(group) <= 1) return value;
  std::vector<unsigned char> bytes;
  if (group->rank() == 0) append_bytes(bytes, &value, 1);
  return ByteReader(group->all_gather(bytes)[0]).value<T>();
}

// Collective: the ranks agree on failure. `failed` is this rank's exception (null when its work
// succeeded); when any rank failed, every rank throws: the first failed rank its own exception,
// the others an Error of its kind, subject and reason, so that every rank ends with the same error
// and exit code. Without a group, rethrows `failed` when set.
void agree(ProcessGroup const* group, std::exception_ptr failed);

// Runs `work` and agrees on its outcome with the other ranks (agree): no rank goes on past a
// failure anywhere, and none waits for a rank that stopped.
template <class Work>
void collectively(ProcessGroup const* group, Work&& work) {
  std::exception_ptr failed;
  try {
    work();
  } catch (...) {
    failed = std::current_exception();
  }
  agree(group, failed);
}

// Collective: the ranks' texts, in rank order, as one file at `path`, written atomically (nothing
// under `path` unless every rank's part was written and flushed). Where every rank can open rank
// 0's temporary file (a folder they share), each writes its part at its offset and flushes it, so
// that no part passes through rank 0; otherwise the parts are sent to rank 0, which writes them.
// Without a group, write_text_file.
void write_text_over_ranks(ProcessGroup const* group, std::string const& path, std::string const& text);

// A tiled output computed by the ranks of a group into one TIFF (TiffTileWriter on rank 0). Each
// rank writes the tiles it computed, any share of the grid, every tile by one rank. Rank 0 writes
// its own as they come; the other ranks encode theirs (TiffTileEncoder, on their writing threads)
// and keep the bytes in a scratch file of their own, so that memory holds none of them. At
// commit(), where every rank sees rank 0's temporary file (the output's folder is shared), rank 0
// leaves room for the other ranks' tiles where one process would have written them
// (TiffTileWriter::reserve_tile) and each rank copies its tiles there and flushes them: the file's
// bytes are those of one process, and no rank's tiles pass through rank 0. Otherwise (a folder the
// ranks do not share, an OME-TIFF whose pyramid rank 0 makes from the file) the tiles are sent to
// rank 0, which writes them. Without a group (or with one rank) it is a TiffTileWriter. Nothing is
// left under `path` unless every rank's tiles were written and commit() succeeded on rank 0.
// An OME-Zarr output (is_ome_zarr_name) is a ZarrTileWriter instead: rank 0 makes the temporary
// folder, every rank writes its tiles there as chunk files of their own (the output's folder must
// be one every rank sees: a resource error otherwise), and rank 0 commits.
class SharedTileWriter {
 public:
  SharedTileWriter(ProcessGroup const* group, std::string const& path, index_t width, index_t height, PixelType type,
                   index_t tile_width, index_t tile_height, WriteOptions const& options);
  ~SharedTileWriter();
  SharedTileWriter(SharedTileWriter const&) = delete;
  SharedTileWriter& operator=(SharedTileWriter const&) = delete;
  // As TiffTileWriter::write_tile, for a tile of this rank. Thread-safe.
  void write_tile(index_t column, index_t row, AnyHostImage const& pixels);
  // Collective: the tiles meet in the file, which rank 0 commits; agree()s on the outcome.
  void commit();

 private:
  // Each rank writes its tiles into rank 0's temporary file, where every rank can open it and the
  // output is no OME-TIFF; false, having written nothing, otherwise.
  bool commit_in_place();
  struct Spill;
  ProcessGroup const* group_;
  std::string path_;
  std::unique_ptr<TiffTileWriter> writer_;  // rank 0
  std::unique_ptr<TiffTileEncoder> encoder_;
  std::unique_ptr<Spill> spill_;          // the other ranks
  std::unique_ptr<ZarrTileWriter> zarr_;  // every rank, for an OME-Zarr output
};

}  // namespace detail
}  // namespace gigaseg
