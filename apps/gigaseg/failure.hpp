#pragma once
// Every failure as one line and its exit code (docs/cli.md): gigaseg's errors with the library's
// parameter spoken as the tool's option, and the failures that come from below the library
// (Kokkos's multi-line allocation failures, std::bad_alloc) as resource errors naming the input
// and what did not fit.
#include <exception>
#include <string>

namespace gigaseg::cli {

struct Failure {
  std::string kind;     // "usage error", "input error", "resource error", "error"
  std::string subject;  // the option or file it is about; may be empty
  std::string reason;   // one line
  int exit_code = 1;
  // "kind: subject: reason"
  std::string line() const;
  // "subject: reason" (a batch summary's row)
  std::string reason_line() const;
};

// `input` is the command's input file, named in memory failures; `device` the GPU ordinal in use
// (-1: the default), whose free memory a device allocation failure reports.
Failure describe_failure(std::exception_ptr const& error, std::string const& input = {}, int device = -1);

}  // namespace gigaseg::cli
