// The option validators of cli.hpp.
#include "apps/gigaseg/cli.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

namespace gigaseg::cli {
namespace {

// The value as a finite number, or false.
bool finite_number(std::string const& text, double& value) {
  char* end = nullptr;
  value = std::strtod(text.c_str(), &end);
  return !text.empty() && end != nullptr && *end == '\0' && std::isfinite(value);
}

std::string number_text(double v) {
  std::string text = std::to_string(v);
  while (text.find('.') != std::string::npos && (text.back() == '0' || text.back() == '.')) {
    bool const dot = text.back() == '.';
    text.pop_back();
    if (dot) break;
  }
  return text;
}

}  // namespace

CLI::Validator positive_number() {
  return CLI::Validator(
      [](std::string& text) {
        double v = 0;
        return finite_number(text, v) && v > 0 ? std::string() : "must be a number above 0, not '" + text + "'";
      },
      "> 0", "positive");
}

CLI::Validator non_negative_number() {
  return CLI::Validator(
      [](std::string& text) {
        double v = 0;
        return finite_number(text, v) && v >= 0 ? std::string() : "must be a number, 0 or more, not '" + text + "'";
      },
      ">= 0", "non-negative");
}

CLI::Validator in_range(double lo, double hi) {
  std::string const range = number_text(lo) + " to " + number_text(hi);
  return CLI::Validator(
      [lo, hi, range](std::string& text) {
        double v = 0;
        return finite_number(text, v) && v >= lo && v <= hi ? std::string()
                                                            : "must be " + range + ", not '" + text + "'";
      },
      range, "range " + range);
}

CLI::Validator unsigned_64() {
  return CLI::Validator(
      [](std::string& text) {
        bool const digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
        errno = 0;
        if (digits) (void)std::strtoull(text.c_str(), nullptr, 10);
        return digits && errno != ERANGE ? std::string()
                                         : "must be an integer from 0 to 18446744073709551615, not '" + text + "'";
      },
      "0 .. 2^64-1", "unsigned 64-bit");
}

}  // namespace gigaseg::cli
