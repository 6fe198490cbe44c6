#include "gigaseg/core/error.hpp"

#include <cstring>

namespace gigaseg {
namespace {
std::string compose(std::string const& subject, std::string const& reason) {
  return subject.empty() ? reason : subject + ": " + reason;
}
}  // namespace

Error::Error(ErrorKind kind, std::string subject, std::string reason, char const* source_file, int source_line)
    : std::runtime_error(compose(subject, reason)),
      kind_(kind),
      subject_(std::move(subject)),
      reason_(std::move(reason)),
      source_file_(source_file),
      source_line_(source_line) {}

OutOfMemory::OutOfMemory(std::string buffer, std::size_t bytes, std::string memory_space, char const* source_file,
                         int source_line, int rank)
    : Error(ErrorKind::resource, std::move(buffer),
            "out of memory " + (bytes > 0 ? "allocating " + std::to_string(bytes >> 20) + " MiB " : std::string()) +
                "in " + memory_space + (rank >= 0 ? " on rank " + std::to_string(rank) : std::string()),
            source_file, source_line),
      bytes_(bytes),
      memory_space_(std::move(memory_space)),
      rank_(rank) {}

std::string Error::where() const {
  char const* slash = std::strrchr(source_file_, '/');
  return std::string(slash ? slash + 1 : source_file_) + ":" + std::to_string(source_line_);
}

bool is_kokkos_allocation_failure(std::string const& message) noexcept {
  return message.find("Kokkos failed to allocate memory") != std::string::npos ||
         message.find("Kokkos encountered an allocation failure") != std::string::npos;
}

char const* to_string(ErrorKind kind) noexcept {
  switch (kind) {
    case ErrorKind::usage: return "usage error";
    case ErrorKind::input: return "input error";
    case ErrorKind::resource: return "resource error";
    case ErrorKind::internal: break;
  }
  return "internal error";
}

}  // namespace gigaseg
