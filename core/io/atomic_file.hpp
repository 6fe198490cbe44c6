#pragma once
// Outputs are written under a temporary name in the destination's folder and renamed over the
// final name only once complete (rename is atomic within a file system), so a crash, a full disk
// or an error never leaves a partial file where the user expects a result.
//
// A temporary is named `.NAME.gigaseg-HOST-PID-N.tmp`. The temporaries alive in this process can
// be removed from a signal handler (remove_temporary_outputs); those a killed process left behind
// (SIGKILL, a node that died) are removed by the next process on the same host that writes into
// the same folder, once it sees their process is gone. Temporaries of other hosts are left alone:
// a folder on a shared file system may be written from several nodes at once.
#include <cstdint>
#include <cstdio>
#include <string>

namespace gigaseg {

class AtomicOutput {
 public:
  // Checks that the destination folder exists and picks a temporary name beside the final one.
  // Throws Error(input) naming `final_path` when the folder is missing. An `is_folder` output (OME-Zarr)
  // is a directory the caller creates at temp_path(); it may replace a folder at `final_path`,
  // which commit() moves aside and removes once the new one is in place.
  explicit AtomicOutput(std::string final_path, bool is_folder = false);
  ~AtomicOutput();  // removes the temporary file (or folder) unless commit() succeeded
  AtomicOutput(AtomicOutput const&) = delete;
  AtomicOutput& operator=(AtomicOutput const&) = delete;

  std::string const& temp_path() const noexcept { return temp_path_; }
  std::string const& final_path() const noexcept { return final_path_; }
  // Flushes the temporary file to disk and renames it over the final path.
  void commit();

 private:
  std::string final_path_;
  std::string temp_path_;
  bool committed_ = false;
  bool folder_ = false;
  int slot_ = -1;  // this temporary's entry for remove_temporary_outputs
};

// Throws the error of a failed write of the output `path`, whose folder holds the temporary file:
// a resource error (exit code 4) saying "no space left on device" (or "disk quota exceeded",
// "file too large") when `error_number` says so or the folder's file system has no space left,
// else an input error (exit code 3) with `what` and the system's reason.
[[noreturn]] void throw_write_failure(std::string const& path, std::string const& what, int error_number);

// Removes every temporary output of this process that is still being written. Async-signal-safe
// (only unlink(2) on preallocated paths): meant for a SIGINT or SIGTERM handler, which then ends the
// process. Up to 256 temporaries at once are tracked; beyond that the oldest stay on disk until a
// later run removes them.
void remove_temporary_outputs() noexcept;

// Removes the temporaries in `folder` that processes of this host left behind (their process no
// longer exists); returns how many. AtomicOutput calls it once per folder and process.
int remove_stale_temporaries(std::string const& folder);

// The disk writes of an output's completed blocks of `writeback_block` bytes start while the rest
// of it is still being encoded and written (sync_file_range, Linux): commit()'s fsync then waits
// for the last blocks instead of the whole file. On the 2-core VM of docs/performance.md a 64 MiB
// file written in 64 KiB pieces took 52-57 ms to write and flush without, 37-41 ms with; 1 GiB:
// 775-806 ms against 524-537 ms. Call after each write of `written` bytes that ended at file
// offset `end` (sequential writes; a block is started once, when a write crosses its end).
// Failures are left to the writes and the fsync to report.
constexpr std::uint64_t writeback_block = std::uint64_t(8) << 20;
// The bytes start_writeback starts for a write of `written` bytes ending at `end`: the whole blocks
// that write completed, {offset, length}; length 0 where it completed none.
struct ByteRange {
  std::uint64_t offset = 0, length = 0;
};
constexpr ByteRange writeback_range(std::uint64_t end, std::uint64_t written) noexcept {
  std::uint64_t const first = (end - (written < end ? written : end)) / writeback_block, last = end / writeback_block;
  return last > first ? ByteRange{first * writeback_block, (last - first) * writeback_block} : ByteRange{};
}
void start_writeback(int fd, std::uint64_t end, std::uint64_t written) noexcept;
// The same for a stdio stream, after an fwrite of `written` bytes (its position is the end): the
// stream is flushed first when a block is completed, so that the block is all in the file.
void start_writeback(std::FILE* file, std::uint64_t written) noexcept;

// Writes `contents` to `path` atomically (CSV tables, JSON reports).
void write_text_file(std::string const& path, std::string const& contents);

}  // namespace gigaseg
