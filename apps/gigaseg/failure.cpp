#include "apps/gigaseg/failure.hpp"

#include "apps/gigaseg/option_names.hpp"
#include "gigaseg/core/error.hpp"
#include "gigaseg/core/runtime.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <new>
#include <sstream>

namespace gigaseg::cli {
namespace {

// The text between `open` and the next `close` after it, or empty.
std::string between(std::string const& text, std::string const& open, std::string const& close) {
  std::size_t const start = text.find(open);
  if (start == std::string::npos) return {};
  std::size_t const from = start + open.size();
  std::size_t const end = text.find(close, from);
  return end == std::string::npos ? std::string() : text.substr(from, end - from);
}

std::string gib(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GiB", bytes / double(std::size_t(1) << 30));
  return text;
}

// The host memory this process can still take, in bytes: MemAvailable of /proc/meminfo, less where
// an address-space limit (ulimit -v, a batch system's) leaves less; negative where unknown.
double host_available() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  double available = -1, kib = 0;
  std::string unit;
  while (meminfo >> key) {
    if (key == "MemAvailable:" && (meminfo >> kib >> unit)) {
      available = kib * 1024;
      break;
    }
    std::getline(meminfo, unit);
  }
  struct rlimit limit {};
  double pages = 0;
  if (::getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
      (std::ifstream("/proc/self/statm") >> pages)) {
    double const left = std::max(0.0, double(limit.rlim_cur) - pages * double(::sysconf(_SC_PAGESIZE)));
    available = available < 0 ? left : std::min(available, left);
  }
  return available;
}

// A buffer's label ("gigaseg::watershed::keys", "gigaseg::labels") as words: "keys", "labels";
// the readers label a decoded image by its file.
std::string buffer_words(std::string const& label) {
  if (label.rfind("gigaseg::", 0) != 0) return "decoded image";
  std::size_t const colon = label.rfind("::");
  std::string words = colon == std::string::npos ? label : label.substr(colon + 2);
  for (char& c : words)
    if (c == '_') c = ' ';
  return words;
}

// "out of GPU memory allocating 64 MiB for the distance; 20.1 GiB free on GPU 0 once the command's
// buffers were released" about `input`. Where the allocation failed on another rank (`rank` >= 0),
// the line names that rank instead of this process's free memory.
Failure out_of_memory(std::string const& space, std::string const& size, std::string const& buffer,
                      std::string const& input, int device, int rank = -1) {
  bool const on_device = space.find("Cuda") != std::string::npos && space != "CudaHostPinned";
  std::string reason = on_device ? "out of GPU memory" : "out of host memory";
  if (!size.empty()) reason += " allocating " + size;
  if (!buffer.empty()) reason += " for the " + buffer_words(buffer);
  std::string const released = " once the command's buffers were released";
  if (rank >= 0) {
    reason += " on rank " + std::to_string(rank);
  } else if (on_device) {
    for (auto const& gpu : visible_devices())
      if (gpu.ordinal == (device < 0 ? 0 : device))
        reason += "; " + gib(double(gpu.free_memory)) + " free on GPU " + std::to_string(gpu.ordinal) + released;
  } else if (double const available = host_available(); available >= 0) {
    reason += "; " + gib(available) + " available" + released;
  }
  return Failure{"resource error", input, reason, 4};
}

std::string mib(std::size_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.0f MiB", double(bytes) / double(std::size_t(1) << 20));
  return text;
}

// Kokkos reports a failed allocation of its own views as a runtime_error of several lines
// ("Kokkos failed to allocate memory for label "L".  Allocation using MemorySpace named "S"
// failed ...  Allocation of size X failed, ...", then a traceback note).
bool kokkos_allocation_failure(std::string const& message, std::string const& input, int device, Failure& out) {
  if (!is_kokkos_allocation_failure(message)) return false;
  std::string size = between(message, "Allocation of size ", " failed");
  if (!size.empty()) size += "B";
  out = out_of_memory(between(message, "MemorySpace named \"", "\""), size, between(message, "for label \"", "\""),
                      input, device);
  return true;
}

}  // namespace

std::string Failure::line() const { return kind + ": " + reason_line(); }

std::string Failure::reason_line() const { return subject.empty() ? reason : subject + ": " + reason; }

Failure describe_failure(std::exception_ptr const& error, std::string const& input, int device) {
  try {
    std::rethrow_exception(error);
  } catch (OutOfMemory const& e) {
    return out_of_memory(e.memory_space(), e.bytes() > 0 ? mib(e.bytes()) : std::string(), e.subject(), input, device,
                         e.rank());
  } catch (Error const& e) {
    return Failure{to_string(e.kind()), option_for(e.subject()), e.reason(), e.exit_code()};
  } catch (std::bad_alloc const&) {
    return Failure{"resource error", input, "out of host memory", 4};
  } catch (std::exception const& e) {
    std::string const message = e.what();
    Failure failure;
    if (kokkos_allocation_failure(message, input, device, failure)) return failure;
    // Anything else from below: its first line only.
    std::string first = message.substr(0, message.find('\n'));
    return Failure{"error", input, first.empty() ? "unknown error" : first, 1};
  } catch (...) {
    return Failure{"error", input, "unknown error", 1};
  }
}

}  // namespace gigaseg::cli
