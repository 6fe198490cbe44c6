#include "core/context.hpp"

#include "core/error.hpp"

#ifdef KOKKOS_ENABLE_CUDA
#include "backends/cuda/stream_instance.hpp"
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
  GIGASEG_THROW(ErrorKind::usage, option,
                "unknown backend '" + text + "' (expected auto, cuda, openmp or serial)");
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
  GIGASEG_REQUIRE(options.small_image_pixels >= 0, ErrorKind::usage, "--small-image-pixels",
                  "must not be negative");
  GIGASEG_REQUIRE(backend_available(options.backend), ErrorKind::usage, "--backend",
                  std::string("backend '") + to_string(options.backend) +
                      "' is not compiled into this gigaseg");
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

Backend ExecutionContext::resolve(index_t pixels) const {
  if (options_.backend != Backend::automatic) return options_.backend;
#ifdef KOKKOS_ENABLE_CUDA
  if (pixels >= options_.small_image_pixels) return Backend::cuda;
#else
  (void)pixels;
#endif
#ifdef KOKKOS_ENABLE_OPENMP
  return Backend::openmp;
#else
  return Backend::serial;
#endif
}

}  // namespace gigaseg
