// No output replaces an input or another output (cli.hpp, check_file_roles).
#include "apps/gigaseg/cli.hpp"
#include "gigaseg/core/error.hpp"
#include "gigaseg/core/io/atomic_file.hpp"
#include "gigaseg/core/io/image_file.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <set>
#include <string>
#include <utility>
#include <vector>
#include <system_error>

namespace gigaseg::cli {
namespace {

namespace fs = std::filesystem;

fs::path resolved(std::string const& path) {
  std::error_code error;
  fs::path const canonical = fs::weakly_canonical(path, error);
  if (!error) return canonical;
  return fs::absolute(path, error).lexically_normal();
}

}  // namespace

bool same_file(std::string const& a, std::string const& b) {
  std::error_code error;
  if (fs::exists(a, error) && fs::exists(b, error)) {
    bool const equivalent = fs::equivalent(a, b, error);
    if (!error) return equivalent;
  }
  return resolved(a) == resolved(b);
}

std::string input_of(CLI::App const& command) {
  for (char const* name : {"IN", "RELIEF", "--input"}) {
    CLI::Option const* option = command.get_option_no_throw(name);
    if (option != nullptr && option->count() > 0 && !option->results().empty()) return option->results().front();
  }
  return {};
}

namespace {

// (option, path) of the parsed command's files in one role, in the order of the options.
std::vector<std::pair<std::string, std::string>> files_of(CLI::App const& command, std::set<std::string> const& role) {
  std::vector<std::pair<std::string, std::string>> files;
  for (CLI::Option const* option : command.get_options()) {
    if (option->count() == 0 || option->results().empty()) continue;
    std::string const name = option->get_name();
    if (role.count(name) != 0) files.emplace_back(name, option->results().front());
  }
  return files;
}

std::set<std::string> const input_options{"IN", "KERNEL", "RELIEF", "MARKERS", "--mask"};
std::set<std::string> const output_options{"OUT", "--stats", "--geojson", "--overlay"};

}  // namespace

OutputsBefore::OutputsBefore(CLI::App const& command) {
  for (auto const& [option, path] : files_of(command, output_options)) {
    Entry entry{path};
    struct stat info {};
    if (::stat(path.c_str(), &info) == 0) {
      entry.existed = true;
      entry.device = info.st_dev;
      entry.inode = info.st_ino;
    }
    entries_.push_back(entry);
  }
}

void OutputsBefore::remove_committed() const {
  for (auto const& entry : entries_) {
    struct stat info {};
    if (::stat(entry.path.c_str(), &info) != 0) continue;
    if (!entry.existed || info.st_dev != entry.device || info.st_ino != entry.inode) ::unlink(entry.path.c_str());
  }
}

void check_file_roles(CLI::App const& command) {
  auto const inputs = files_of(command, input_options);
  auto const outputs = files_of(command, output_options);
  for (auto const& [option, path] : inputs)
    GIGASEG_REQUIRE(!path.empty(), ErrorKind::usage, option, "needs a file name, not an empty string");
  for (auto const& [option, path] : outputs)
    GIGASEG_REQUIRE(!path.empty(), ErrorKind::usage, option, "needs a file name, not an empty string");
  for (std::size_t o = 0; o < outputs.size(); ++o) {
    auto const& [option, output] = outputs[o];
    for (auto const& [input_option, input] : inputs)
      GIGASEG_REQUIRE(!same_file(output, input), ErrorKind::usage, option,
                      "'" + output + "' would replace the input " + input_option + " ('" + input + "')");
    for (std::size_t p = 0; p < o; ++p) {
      auto const& [other_option, other] = outputs[p];
      GIGASEG_REQUIRE(!same_file(output, other), ErrorKind::usage, option,
                      "'" + output + "' is also the output " + other_option + "; each output needs its own file");
    }
  }
  for (auto const& file : outputs) {
    std::string const& output = file.second;
    // The folder exists and the path is no folder, or an OME-Zarr output is no file (input errors).
    AtomicOutput const probe(output, is_ome_zarr_name(output));
    std::string const folder = fs::path(probe.temp_path()).parent_path().string();
    GIGASEG_REQUIRE(::access(folder.empty() ? "." : folder.c_str(), W_OK) == 0, ErrorKind::input, output,
                    "cannot write into the folder '" + (folder.empty() ? std::string(".") : folder) + "'");
  }
}

}  // namespace gigaseg::cli
