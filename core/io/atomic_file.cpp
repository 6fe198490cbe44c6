#include "gigaseg/core/io/atomic_file.hpp"

#include "gigaseg/core/error.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>

namespace gigaseg {
namespace {
std::atomic<unsigned> temp_counter{0};

// The temporaries being written, for remove_temporary_outputs: a slot is claimed (1) while its
// path is copied in, live (2) once complete, free (0) again after commit or removal.
struct TemporarySlot {
  std::atomic<int> state{0};
  char path[PATH_MAX];
};
TemporarySlot temporary_slots[256];

int track_temporary(std::string const& path) {
  if (path.size() >= PATH_MAX) return -1;
  for (int i = 0; i < int(sizeof temporary_slots / sizeof temporary_slots[0]); ++i) {
    int expected = 0;
    if (temporary_slots[i].state.compare_exchange_strong(expected, 1)) {
      std::memcpy(temporary_slots[i].path, path.c_str(), path.size() + 1);
      temporary_slots[i].state.store(2);
      return i;
    }
  }
  return -1;
}

void untrack_temporary(int slot) {
  if (slot >= 0) temporary_slots[slot].state.store(0);
}

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "host";
  for (char* c = name; *c != '\0'; ++c)
    if (*c == '/' || *c == '-' || *c == '.') *c = '_';  // one field of the temporary's name
  return name;
}

std::string parent_folder(std::string const& path) {
  auto const slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}
}  // namespace

void remove_temporary_outputs() noexcept {
  for (auto& slot : temporary_slots)
    if (slot.state.load() == 2) ::unlink(slot.path);
}

int remove_stale_temporaries(std::string const& folder) {
  static std::string const marker = ".gigaseg-" + host_name() + "-";
  DIR* dir = ::opendir(folder.c_str());
  if (dir == nullptr) return 0;
  int removed = 0;
  while (dirent const* entry = ::readdir(dir)) {
    std::string const name = entry->d_name;
    // .NAME.gigaseg-HOST-PID-N.tmp, HOST this host's
    std::size_t const at = name.rfind(marker);
    if (name.size() < 5 || name[0] != '.' || at == std::string::npos || name.compare(name.size() - 4, 4, ".tmp") != 0)
      continue;
    char* end = nullptr;
    long const pid = std::strtol(name.c_str() + at + marker.size(), &end, 10);
    if (pid <= 0 || end == nullptr || *end != '-') continue;
    if (::kill(pid_t(pid), 0) == 0 || errno != ESRCH) continue;  // alive, or not ours to judge
    std::error_code failed;                                      // a folder output's temporary (OME-Zarr) goes whole
    if (::unlink((folder + "/" + name).c_str()) == 0 ||
        (errno == EISDIR && std::filesystem::remove_all(folder + "/" + name, failed) > 0))
      ++removed;
  }
  ::closedir(dir);
  return removed;
}

void throw_write_failure(std::string const& path, std::string const& what, int error_number) {
  struct statvfs space {};
  bool const full = ::statvfs(parent_folder(path).c_str(), &space) == 0 && space.f_bavail == 0;
  if (error_number == ENOSPC || (full && error_number != EDQUOT && error_number != EFBIG))
    GIGASEG_THROW(ErrorKind::resource, path, "no space left on device");
  if (error_number == EDQUOT) GIGASEG_THROW(ErrorKind::resource, path, "disk quota exceeded");
  if (error_number == EFBIG) GIGASEG_THROW(ErrorKind::resource, path, "file too large for this file system or limit");
  GIGASEG_THROW(ErrorKind::input, path,
                what + (error_number != 0 ? std::string(": ") + std::strerror(error_number) : ""));
}

AtomicOutput::AtomicOutput(std::string final_path, bool is_folder)
    : final_path_(std::move(final_path)), folder_(is_folder) {
  GIGASEG_REQUIRE(!final_path_.empty(), ErrorKind::usage, "output", "empty output path");
  std::string const folder = parent_folder(final_path_);
  struct stat info {};
  GIGASEG_REQUIRE(::stat(folder.c_str(), &info) == 0 && S_ISDIR(info.st_mode), ErrorKind::input, final_path_,
                  "output folder '" + folder + "' does not exist");
  struct stat target {};
  GIGASEG_REQUIRE(::stat(final_path_.c_str(), &target) != 0 || (folder_ == S_ISDIR(target.st_mode)), ErrorKind::input,
                  final_path_, folder_ ? "is a file, not a folder" : "is a folder, not a file");
  // A large file this output will replace keeps its pages in the page cache until the rename, so
  // the new file's pages had to be found beside them: on the 2-core VM of docs/performance.md an
  // uncompressed 1 GiB TIFF written over an earlier one took 1.2 to 2.9 s, against 0.96 to 0.99 s
  // with no earlier file. Its clean cached pages are let go first (the file itself is untouched
  // until the rename; a symbolic link is replaced, not followed).
  struct stat replaced {};
  if (::lstat(final_path_.c_str(), &replaced) == 0 && S_ISREG(replaced.st_mode) && replaced.st_size >= (64 << 20)) {
    int const fd = ::open(final_path_.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd >= 0) {
      (void)::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
      ::close(fd);
    }
  }
  {
    static std::mutex mutex;
    static std::set<std::string> cleaned;  // folders whose stale temporaries are gone
    std::lock_guard<std::mutex> lock(mutex);
    if (cleaned.insert(folder).second) remove_stale_temporaries(folder);
  }
  auto const slash = final_path_.find_last_of('/');
  std::string const name = slash == std::string::npos ? final_path_ : final_path_.substr(slash + 1);
  static std::string const host = host_name();
  temp_path_ = (folder == "." && slash == std::string::npos ? std::string() : folder + "/") + "." + name + ".gigaseg-" +
               host + "-" + std::to_string(::getpid()) + "-" + std::to_string(temp_counter++) + ".tmp";
  slot_ = track_temporary(temp_path_);
}

AtomicOutput::~AtomicOutput() {
  std::error_code ignored;
  if (!committed_ && folder_) std::filesystem::remove_all(temp_path_, ignored);
  if (!committed_ && !folder_) std::remove(temp_path_.c_str());
  untrack_temporary(slot_);
}

void AtomicOutput::commit() {
  int const fd = ::open(temp_path_.c_str(), O_RDONLY);
  GIGASEG_REQUIRE(fd >= 0, ErrorKind::input, final_path_,
                  std::string("temporary output vanished: ") + std::strerror(errno));
  int const synced = ::fsync(fd);
  int const sync_errno = errno;
  ::close(fd);
  if (synced != 0) throw_write_failure(final_path_, "cannot flush output", sync_errno);
  // A folder cannot be renamed over another that holds files: the old one moves aside first, and
  // back if the new one cannot take its place.
  std::string const aside = temp_path_ + ".old";
  struct stat old {};
  bool const replacing = folder_ && ::stat(final_path_.c_str(), &old) == 0;
  if (replacing)
    GIGASEG_REQUIRE(std::rename(final_path_.c_str(), aside.c_str()) == 0, ErrorKind::input, final_path_,
                    std::string("cannot move the output it replaces aside: ") + std::strerror(errno));
  if (std::rename(temp_path_.c_str(), final_path_.c_str()) != 0) {
    int const e = errno;
    if (replacing) (void)std::rename(aside.c_str(), final_path_.c_str());
    GIGASEG_THROW(ErrorKind::input, final_path_, std::string("cannot rename output into place: ") + std::strerror(e));
  }
  committed_ = true;
  if (replacing) {
    std::error_code ignored;
    std::filesystem::remove_all(aside, ignored);
  }
  untrack_temporary(slot_);
  slot_ = -1;
}

void start_writeback(int fd, std::uint64_t end, std::uint64_t written) noexcept {
#ifdef __linux__
  ByteRange const range = writeback_range(end, written);
  if (fd >= 0 && range.length > 0)
    (void)::sync_file_range(fd, off_t(range.offset), off_t(range.length), SYNC_FILE_RANGE_WRITE);
#else
  (void)fd, (void)end, (void)written;
#endif
}

void start_writeback(std::FILE* file, std::uint64_t written) noexcept {
  off_t const end = ::ftello(file);  // the stream's position: its buffered bytes included
  if (end <= 0 || writeback_range(std::uint64_t(end), written).length == 0) return;
  // The completed blocks' last bytes may still be in the stream's buffer: they reach the file
  // first, so that no page is written again once its writeback started (a failure is the writes'
  // to report).
  if (std::fflush(file) != 0) return;
  start_writeback(::fileno(file), std::uint64_t(end), written);
}

void write_text_file(std::string const& path, std::string const& contents) {
  AtomicOutput output(path);
  std::FILE* file = std::fopen(output.temp_path().c_str(), "wb");
  GIGASEG_REQUIRE(file != nullptr, ErrorKind::input, path, std::string("cannot create: ") + std::strerror(errno));
  errno = 0;
  bool written = true;
  for (std::size_t at = 0; written && at < contents.size(); at += writeback_block) {
    std::size_t const piece = std::min<std::size_t>(contents.size() - at, writeback_block);
    written = std::fwrite(contents.data() + at, 1, piece, file) == piece;
    if (written) start_writeback(file, piece);
  }
  int const write_errno = errno;
  bool const closed = std::fclose(file) == 0;
  if (!written || !closed) throw_write_failure(path, "write failed", written ? errno : write_errno);
  output.commit();
}

}  // namespace gigaseg
