#include "gigaseg/core/io/atomic_file.hpp"

#include "gigaseg/core/error.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace gigaseg {
namespace {
std::atomic<unsigned> temp_counter{0};

std::string parent_folder(std::string const& path) {
  auto const slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}
}  // namespace

AtomicOutput::AtomicOutput(std::string final_path) : final_path_(std::move(final_path)) {
  GIGASEG_REQUIRE(!final_path_.empty(), ErrorKind::usage, "output", "empty output path");
  std::string const folder = parent_folder(final_path_);
  struct stat info {};
  GIGASEG_REQUIRE(::stat(folder.c_str(), &info) == 0 && S_ISDIR(info.st_mode), ErrorKind::input, final_path_,
                  "output folder '" + folder + "' does not exist");
  struct stat target {};
  GIGASEG_REQUIRE(::stat(final_path_.c_str(), &target) != 0 || !S_ISDIR(target.st_mode), ErrorKind::input, final_path_,
                  "is a folder, not a file");
  auto const slash = final_path_.find_last_of('/');
  std::string const name = slash == std::string::npos ? final_path_ : final_path_.substr(slash + 1);
  temp_path_ = (folder == "." && slash == std::string::npos ? std::string() : folder + "/") + "." + name + ".gigaseg-" +
               std::to_string(::getpid()) + "-" + std::to_string(temp_counter++) + ".tmp";
}

AtomicOutput::~AtomicOutput() {
  if (!committed_) std::remove(temp_path_.c_str());
}

void AtomicOutput::commit() {
  int const fd = ::open(temp_path_.c_str(), O_RDONLY);
  GIGASEG_REQUIRE(fd >= 0, ErrorKind::input, final_path_,
                  std::string("temporary output vanished: ") + std::strerror(errno));
  int const synced = ::fsync(fd);
  int const sync_errno = errno;
  ::close(fd);
  GIGASEG_REQUIRE(synced == 0, ErrorKind::input, final_path_,
                  std::string("cannot flush output: ") + std::strerror(sync_errno));
  GIGASEG_REQUIRE(std::rename(temp_path_.c_str(), final_path_.c_str()) == 0, ErrorKind::input, final_path_,
                  std::string("cannot rename output into place: ") + std::strerror(errno));
  committed_ = true;
}

void write_text_file(std::string const& path, std::string const& contents) {
  AtomicOutput output(path);
  std::FILE* file = std::fopen(output.temp_path().c_str(), "wb");
  GIGASEG_REQUIRE(file != nullptr, ErrorKind::input, path, std::string("cannot create: ") + std::strerror(errno));
  bool const written = std::fwrite(contents.data(), 1, contents.size(), file) == contents.size();
  bool const closed = std::fclose(file) == 0;
  GIGASEG_REQUIRE(written && closed, ErrorKind::input, path, std::string("write failed: ") + std::strerror(errno));
  output.commit();
}

}  // namespace gigaseg
