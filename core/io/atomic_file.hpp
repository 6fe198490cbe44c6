#pragma once
// Outputs are written under a temporary name in the destination's folder and renamed over the
// final name only once complete (rename is atomic within a file system), so a crash, a full disk
// or an error never leaves a partial file where the user expects a result.
#include <string>

namespace gigaseg {

class AtomicOutput {
 public:
  // Checks that the destination folder exists and picks a temporary name beside the final one.
  // Throws Error(input) naming `final_path` when the folder is missing.
  explicit AtomicOutput(std::string final_path);
  ~AtomicOutput();  // removes the temporary file unless commit() succeeded
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
};

// Writes `contents` to `path` atomically (CSV tables, JSON reports).
void write_text_file(std::string const& path, std::string const& contents);

}  // namespace gigaseg
