#pragma once
// ExecutionContext: where work runs. It owns the device execution-space instance (its own CUDA
// stream, so that work submitted through one context overlaps other contexts' work), the host
// instance, and the small-image policy: below a pixel count the GPU loses to its launch and copy
// costs (seed 000 section 6.4), so `auto` sends such images to the host backend.
#include "core/image.hpp"

#include <Kokkos_Core.hpp>

#include <string>

namespace gigaseg {

enum class Backend { automatic, cuda, openmp, serial };

char const* to_string(Backend backend) noexcept;
// Parses "auto|cuda|openmp|serial"; throws Error(usage) naming `option` otherwise.
Backend parse_backend(std::string const& text, std::string const& option = "--backend");

// Images with fewer pixels than this go to the host backend under `auto`. The value and the
// measurement behind it are in docs/performance.md ("small-image threshold").
constexpr index_t default_small_image_pixels = index_t(1) << 20;

struct ContextOptions {
  Backend backend = Backend::automatic;
  index_t small_image_pixels = default_small_image_pixels;
};

// True when `backend` is compiled in and (for CUDA) a device is present.
bool backend_available(Backend backend);

class ExecutionContext {
 public:
  // Throws Error(usage) when a requested backend is not compiled in, Error(resource) when the
  // CUDA backend is requested without a device. Needs an initialised Kokkos (see Runtime).
  explicit ExecutionContext(ContextOptions options = {});
  ~ExecutionContext();
  ExecutionContext(ExecutionContext const&) = delete;
  ExecutionContext& operator=(ExecutionContext const&) = delete;

  // The backend that runs an image of `pixels` pixels under this context's options.
  Backend resolve(index_t pixels) const;
  Backend requested() const noexcept { return options_.backend; }
  index_t small_image_pixels() const noexcept { return options_.small_image_pixels; }

  Kokkos::DefaultExecutionSpace const& device() const noexcept { return device_; }
  Kokkos::DefaultHostExecutionSpace const& host() const noexcept { return host_; }
  void fence() const;

 private:
  ContextOptions options_;
  void* owned_stream_ = nullptr;  // cudaStream_t behind device_ on CUDA builds
  Kokkos::DefaultExecutionSpace device_;
  Kokkos::DefaultHostExecutionSpace host_;
};

}  // namespace gigaseg
