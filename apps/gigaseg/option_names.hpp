#pragma once
// The library names the parameter a usage error is about (`LabelParams::connectivity`,
// `median(size)`, `label path`); the command line speaks of its own options. This maps one to the
// other for the one-line error the tool prints.
#include <string>

namespace gigaseg::cli {

// The option of this tool that sets the library parameter `subject`, or `subject` itself when no
// option does (a file name, an internal buffer).
std::string option_for(std::string const& subject);

}  // namespace gigaseg::cli
