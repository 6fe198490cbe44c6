// The non-template part of backend_dispatch.hpp.
#include "apps/gigaseg/backend_dispatch.hpp"

#include <sys/stat.h>
#include <unistd.h>

namespace gigaseg::cli {

Path parse_path(std::string const& text) {
  if (text == "auto") return Path::automatic;
  if (text == "portable") return Path::portable;
  if (text == "tuned") return Path::tuned;
  GIGASEG_THROW(ErrorKind::usage, "--path", "unknown path '" + text + "' (expected auto, portable or tuned)");
}

ImageShape shape_if_known(std::string const& input) {
  struct stat st {};
  if (::stat(input.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return {};
  try {
    return image_shape(input);
  } catch (Error const&) {
    return {};
  }
}

bool may_touch_ahead(double bytes) {
  return bytes <= double(::sysconf(_SC_AVPHYS_PAGES)) * double(::sysconf(_SC_PAGE_SIZE)) / 2;
}

}  // namespace gigaseg::cli
