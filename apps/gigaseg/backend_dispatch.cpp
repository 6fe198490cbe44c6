// The non-template part of backend_dispatch.hpp.
#include "apps/gigaseg/backend_dispatch.hpp"

namespace gigaseg::cli {

Path parse_path(std::string const& text) {
  if (text == "auto") return Path::automatic;
  if (text == "portable") return Path::portable;
  if (text == "tuned") return Path::tuned;
  GIGASEG_THROW(ErrorKind::usage, "--path", "unknown path '" + text + "' (expected auto, portable or tuned)");
}

}  // namespace gigaseg::cli
