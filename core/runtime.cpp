#include "gigaseg/core/runtime.hpp"
#include "gigaseg/core/device_memory.hpp"

#include "gigaseg/core/error.hpp"
#include "gigaseg/gigaseg_config.hpp"

#include <Kokkos_Core.hpp>

#include <cerrno>
#include <cstdlib>

#ifdef KOKKOS_ENABLE_CUDA
#include "gigaseg/core/cuda/device_query.hpp"
#include "gigaseg/core/cuda/stream_scratch.hpp"
#include "gigaseg/core/cuda/transfer_cuda.hpp"
#endif

namespace gigaseg {

int max_host_threads() noexcept {
#if defined(KOKKOS_ENABLE_OPENMP) && KOKKOS_VERSION < 40000
  return Kokkos::Impl::OpenMPExec::MAX_THREAD_COUNT;
#else
  return 4096;
#endif
}

namespace {

// The thread count OMP_NUM_THREADS asks for (its first level), or -1 when unset or not a number.
long requested_by_environment() {
  char const* text = std::getenv("OMP_NUM_THREADS");
  if (text == nullptr) return -1;
  char* end = nullptr;
  errno = 0;
  long const count = std::strtol(text, &end, 10);
  if (end == text || errno != 0 || (*end != '\0' && *end != ',')) return -1;
  return count;
}

}  // namespace

Runtime::Runtime(RuntimeOptions options) {
  if (Kokkos::is_initialized()) return;
  int const limit = max_host_threads();
  GIGASEG_REQUIRE(options.threads == -1 || (options.threads >= 1 && options.threads <= limit), ErrorKind::usage,
                  "RuntimeOptions::threads",
                  "must be 1 to " + std::to_string(limit) + " (the most this Kokkos's OpenMP backend takes), not " +
                      std::to_string(options.threads));
  long const from_environment = options.threads > 0 ? -1 : requested_by_environment();
  GIGASEG_REQUIRE(from_environment <= limit, ErrorKind::usage, "OMP_NUM_THREADS",
                  "asks for " + std::to_string(from_environment) +
                      " threads; this Kokkos's OpenMP backend takes at most " + std::to_string(limit));
  bool const asked = options.threads > 0 || from_environment > 0;
  // Kokkos's OpenMP backend warns on every start when OMP_PROC_BIND is unset. Unset means the
  // OpenMP runtime's default (no binding), which is what we get either way; say so explicitly
  // instead of printing the warning into every command's stderr. Users who bind keep their value.
  ::setenv("OMP_PROC_BIND", "false", /*overwrite=*/0);
#ifdef KOKKOS_ENABLE_CUDA
  // Kokkos aborts the process when its CUDA backend finds no device; say so as an error instead.
  int const count = cuda::device_count();
  GIGASEG_REQUIRE(count > 0, ErrorKind::resource, "CUDA",
                  "this gigaseg was built for CUDA but no usable GPU is visible "
                  "(use a host build for CPU-only machines)");
  GIGASEG_REQUIRE(options.device < count, ErrorKind::usage, "RuntimeOptions::device",
                  "GPU " + std::to_string(options.device) + " does not exist (" + std::to_string(count) + " visible)");
#else
  GIGASEG_REQUIRE(options.device < 0, ErrorKind::usage, "RuntimeOptions::device",
                  "GPU " + std::to_string(options.device) + " does not exist (this gigaseg has no CUDA backend)");
#endif
#if KOKKOS_VERSION >= 30700
  // InitializationSettings replaced InitArguments in Kokkos 3.7; InitArguments went in 4.x.
  Kokkos::InitializationSettings settings;
  if (options.threads > 0) settings.set_num_threads(options.threads);
  if (options.device >= 0) settings.set_device_id(options.device);
  if (asked) settings.set_disable_warnings(true);  // the oversubscription warning: the count was asked for
  Kokkos::initialize(settings);
#else
  Kokkos::InitArguments arguments;
  arguments.num_threads = options.threads;
  arguments.device_id = options.device;
  arguments.disable_warnings = asked;  // the oversubscription warning: the count was asked for
  Kokkos::initialize(arguments);
#endif
  owns_kokkos_ = true;
  configure_device_pools(options.device_pool);
}

void configure_device_pools(DevicePoolOptions const& options) {
#ifdef KOKKOS_ENABLE_CUDA
  cuda::configure_pools(options.kept_bytes);
#else
  (void)options;
#endif
}

void release_device_pools() {
#ifdef KOKKOS_ENABLE_CUDA
  cuda::release_pools();
#endif
}

Runtime::~Runtime() {
  if (!owns_kokkos_) return;
#ifdef KOKKOS_ENABLE_CUDA
  cuda::release_staging();
#endif
  Kokkos::finalize();
}

BuildInfo build_info() {
  BuildInfo info;
  info.gigaseg_version = GIGASEG_VERSION_STRING;
  info.kokkos_version = std::to_string(KOKKOS_VERSION / 10000) + "." + std::to_string(KOKKOS_VERSION / 100 % 100) +
                        "." + (KOKKOS_VERSION % 100 < 10 ? "0" : "") + std::to_string(KOKKOS_VERSION % 100);
#ifdef KOKKOS_ENABLE_CUDA
  info.backends.push_back("cuda");
#endif
#ifdef KOKKOS_ENABLE_OPENMP
  info.backends.push_back("openmp");
  if (Kokkos::is_initialized()) info.host_threads = Kokkos::OpenMP().concurrency();
#endif
#ifdef KOKKOS_ENABLE_SERIAL
  info.backends.push_back("serial");
#endif
  info.cuda_kernels = GIGASEG_HAVE_CUDA_KERNELS;
  return info;
}

std::vector<DeviceInfo> visible_devices() {
#ifdef KOKKOS_ENABLE_CUDA
  return cuda::query_devices();
#else
  return {};
#endif
}

DeviceMemory current_device_memory() {
#ifdef KOKKOS_ENABLE_CUDA
  return cuda::current_memory();
#else
  return {};
#endif
}

}  // namespace gigaseg
