#include "gigaseg/core/context.hpp"

#include "gigaseg/core/error.hpp"

#include <algorithm>

#ifdef KOKKOS_ENABLE_CUDA
#include "gigaseg/core/cuda/stream_instance.hpp"
#endif

namespace gigaseg {

char const* to_string(Backend backend) noexcept {
  switch (backend) {
    case Backend::automatic: return "auto";
    case Backend::cuda: return "cuda";
    case Backend::openmp: return "openmp";
    case Backend::serial: return "serial";
  }
  return "?";
}

Backend parse_backend(std::string const& text, std::string const& option) {
  if (text == "auto") return Backend::automatic;
  if (text == "cuda") return Backend::cuda;
  if (text == "openmp") return Backend::openmp;
  if (text == "serial") return Backend::serial;
  GIGASEG_THROW(ErrorKind::usage, option, "unknown backend '" + text + "' (expected auto, cuda, openmp or serial)");
}

char const* to_string(OpFamily family) noexcept {
  switch (family) {
    case OpFamily::point: return "point";
    case OpFamily::filter: return "filter";
    case OpFamily::label: return "label";
    case OpFamily::distance: return "distance";
    case OpFamily::pipeline: return "pipeline";
  }
  return "?";
}

OpFamily parse_op_family(std::string const& text, std::string const& option) {
  for (int f = 0; f < op_family_count; ++f)
    if (text == to_string(OpFamily(f))) return OpFamily(f);
  GIGASEG_THROW(ErrorKind::usage, option,
                "unknown operation family '" + text + "' (expected point, filter, label, distance or pipeline)");
}

index_t default_small_image_pixels(OpFamily family) noexcept {
  // Measured on the H200 machine (16 host threads), 2026-12-03: perf/bench_crossover.cpp, table in
  // docs/performance.md. Each value is the smallest measured square size at which the GPU, upload
  // and download included, was faster than the host, and stayed faster at every larger size up
  // to 4096^2. Point operations, filters and labelling never were: from and to host files, 16
  // host threads beat the transfers (by 2x to 47x), so `auto` keeps them on the host
  // (small_image_never); --backend cuda or --small-image-pixels still sends them to the GPU.
  switch (family) {
    case OpFamily::point: return small_image_never;
    case OpFamily::filter: return small_image_never;
    case OpFamily::label: return small_image_never;
    case OpFamily::distance: return index_t(256) * 256;
    case OpFamily::pipeline: return index_t(256) * 256;
  }
  return small_image_never;
}

void parse_small_image_pixels(std::string const& text, ContextOptions& options) {
  std::string const option = "ContextOptions::small_image_pixels";
  auto number = [&](std::string const& digits) {
    GIGASEG_REQUIRE(
        !digits.empty() && digits.size() <= 18 && digits.find_first_not_of("0123456789") == std::string::npos,
        ErrorKind::usage, option, "'" + digits + "' is not a pixel count (a non-negative integer)");
    return index_t(std::stoll(digits));
  };
  if (text.find('=') == std::string::npos) {
    options.set_small_image_pixels(number(text));
    return;
  }
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t const end = std::min(text.find(',', start), text.size());
    std::string const item = text.substr(start, end - start);
    std::size_t const equals = item.find('=');
    GIGASEG_REQUIRE(equals != std::string::npos, ErrorKind::usage, option,
                    "'" + item + "' is not family=pixels (families: point, filter, label, distance, pipeline)");
    options.small_image_pixels[std::size_t(parse_op_family(item.substr(0, equals), option))] =
        number(item.substr(equals + 1));
    start = end + 1;
  }
}

bool backend_available(Backend backend) {
  switch (backend) {
    case Backend::automatic: return true;
    case Backend::cuda:
#ifdef KOKKOS_ENABLE_CUDA
      return true;  // a CUDA build cannot initialise Kokkos without a device (see Runtime)
#else
      return false;
#endif
    case Backend::openmp:
#ifdef KOKKOS_ENABLE_OPENMP
      return true;
#else
      return false;
#endif
    case Backend::serial:
#ifdef KOKKOS_ENABLE_SERIAL
      return true;
#else
      return false;
#endif
  }
  return false;
}

ExecutionContext::ExecutionContext(ContextOptions options) : options_(options) {
  for (auto& pixels : options_.small_image_pixels)
    GIGASEG_REQUIRE(pixels >= -1, ErrorKind::usage, "ContextOptions::small_image_pixels", "must not be negative");
  GIGASEG_REQUIRE(backend_available(options.backend), ErrorKind::usage, "ContextOptions::backend",
                  std::string("backend '") + to_string(options.backend) + "' is not compiled into this gigaseg");
#ifdef KOKKOS_ENABLE_CUDA
  device_ = cuda::make_stream_instance(owned_stream_);
#endif
}

ExecutionContext::~ExecutionContext() {
  fence();
#ifdef KOKKOS_ENABLE_CUDA
  device_ = Kokkos::DefaultExecutionSpace();  // drop the instance before its stream goes
  cuda::destroy_stream(owned_stream_);
#endif
}

void ExecutionContext::fence() const {
  device_.fence();
  host_.fence();
}

index_t ExecutionContext::small_image_pixels(OpFamily family) const noexcept {
  index_t const set = options_.small_image_pixels[std::size_t(family)];
  return set >= 0 ? set : default_small_image_pixels(family);
}

Backend ExecutionContext::resolve(index_t pixels, OpFamily family) const {
  if (options_.backend != Backend::automatic) return options_.backend;
#ifdef KOKKOS_ENABLE_CUDA
  if (pixels >= small_image_pixels(family)) return Backend::cuda;
#else
  (void)pixels;
  (void)family;
#endif
#ifdef KOKKOS_ENABLE_OPENMP
  return Backend::openmp;
#else
  return Backend::serial;
#endif
}

}  // namespace gigaseg
