#pragma once
// ExecutionContext: where work runs. It owns the device execution-space instance (its own CUDA
// stream, so that work submitted through one context overlaps other contexts' work), the host
// instance, and the small-image policy: below a pixel count the GPU loses to its launch and copy
// costs, so `auto` sends such images to the host backend.
#include "gigaseg/core/image.hpp"

#include <Kokkos_Core.hpp>

#include <array>
#include <limits>
#include <string>

namespace gigaseg {

enum class Backend { automatic, cuda, openmp, serial };

char const* to_string(Backend backend) noexcept;
// Parses "auto|cuda|openmp|serial"; throws Error(usage) naming `option` otherwise.
Backend parse_backend(std::string const& text, std::string const& option = "ContextOptions::backend");

// Operation families, each with its own small-image threshold: below it the GPU loses to its
// launch and copy costs and `auto` sends the image to the host backend.
//  - point:    threshold, histogram, convert (a few operations per pixel: transfers dominate)
//  - filter:   median, Gaussian, Sobel, morphology, convolution
//  - label:    connected components and region statistics
//  - distance: exact distance transform, watershed
//  - pipeline: the segmentation pipelines (segment, batch, demo) and k-means
enum class OpFamily { point, filter, label, distance, pipeline };
inline constexpr int op_family_count = 5;
char const* to_string(OpFamily family) noexcept;
// Parses a family name; throws Error(usage) naming `option` otherwise.
OpFamily parse_op_family(std::string const& text, std::string const& option);

// The built-in thresholds (pixels), measured on the H200 machine: the smallest square image at
// which the GPU, transfers included, beats the host (docs/performance.md, "small-image
// thresholds", and perf/bench_crossover.cpp).
index_t default_small_image_pixels(OpFamily family) noexcept;
// A threshold no image reaches: the family stays on the host under `auto`.
inline constexpr index_t small_image_never = std::numeric_limits<index_t>::max();

struct ContextOptions {
  Backend backend = Backend::automatic;
  // Per family, indexed by OpFamily; -1: the built-in default.
  std::array<index_t, op_family_count> small_image_pixels{-1, -1, -1, -1, -1};
  // Sets every family's threshold.
  void set_small_image_pixels(index_t pixels) { small_image_pixels.fill(pixels); }
};

// Parses a threshold setting, "N" (every family) or "family=N[,family=N...]" (those families),
// into `options`. Throws Error(usage) naming ContextOptions::small_image_pixels.
void parse_small_image_pixels(std::string const& text, ContextOptions& options);

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

  // The backend that runs an image of `pixels` pixels of work in `family` under this context's
  // options.
  Backend resolve(index_t pixels, OpFamily family) const;
  Backend requested() const noexcept { return options_.backend; }
  // The threshold in use for `family` (the default unless overridden).
  index_t small_image_pixels(OpFamily family) const noexcept;

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
