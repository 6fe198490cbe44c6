#pragma once
// One exception type for every error a user can cause (bad option, unreadable file, too little
// memory). It carries what went wrong, which file/option/argument it concerns, and where in the
// source it was raised. The CLI turns its kind into the exit codes of docs/cli.md.
#include <cstddef>
#include <stdexcept>
#include <string>

namespace gigaseg {

enum class ErrorKind {
  internal = 1,  // a bug or an unexpected library failure
  usage = 2,     // bad option, missing or malformed argument
  input = 3,     // file missing, unreadable, corrupt, unsupported pixel type, size mismatch
  resource = 4,  // out of memory, no device
};

class Error : public std::runtime_error {
 public:
  // subject: the file, option or argument concerned (may be empty); reason: what is wrong with it.
  Error(ErrorKind kind, std::string subject, std::string reason, char const* source_file = "", int source_line = 0);

  ErrorKind kind() const noexcept { return kind_; }
  std::string const& subject() const noexcept { return subject_; }
  std::string const& reason() const noexcept { return reason_; }
  // "file.cpp:123" of the throw site, for bug reports.
  std::string where() const;
  // The process exit code docs/cli.md assigns to this kind.
  int exit_code() const noexcept { return static_cast<int>(kind_); }

 private:
  ErrorKind kind_;
  std::string subject_;
  std::string reason_;
  char const* source_file_;
  int source_line_;
};

// A buffer that could not be allocated: a resource error about the buffer (its label, the
// subject), with the bytes asked for and the memory space, so that a caller can say what did not
// fit where (the CLI names the input file and the memory still free). `bytes` is 0 where the size
// is not known (a std::bad_alloc from a standard container). `rank` is the rank of the process
// group on which the allocation failed, where another rank's failure is reported here (see
// engine/process_group.hpp, agree); -1 where it failed in this process.
class OutOfMemory : public Error {
 public:
  OutOfMemory(std::string buffer, std::size_t bytes, std::string memory_space, char const* source_file = "",
              int source_line = 0, int rank = -1);
  std::size_t bytes() const noexcept { return bytes_; }
  std::string const& memory_space() const noexcept { return memory_space_; }  // Kokkos's name: "Host", "Cuda"
  int rank() const noexcept { return rank_; }

 private:
  std::size_t bytes_;
  std::string memory_space_;
  int rank_;
};

char const* to_string(ErrorKind kind) noexcept;

// Whether `message` (an exception's what()) is Kokkos's report of a failed allocation of one of its
// own views: a std::runtime_error of several lines ("Kokkos failed to allocate memory for label
// "L".  Allocation using MemorySpace named "S" failed ...  Allocation of size X failed ...").
bool is_kokkos_allocation_failure(std::string const& message) noexcept;

}  // namespace gigaseg

#define GIGASEG_THROW(kind, subject, reason) throw ::gigaseg::Error((kind), (subject), (reason), __FILE__, __LINE__)

// Precondition on user input: throws an input/usage error naming the subject.
#define GIGASEG_REQUIRE(condition, kind, subject, reason)   \
  do {                                                      \
    if (!(condition)) GIGASEG_THROW(kind, subject, reason); \
  } while (false)
