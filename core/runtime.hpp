#pragma once
// Process-wide set-up: Kokkos initialisation across Kokkos 3.4 .. 5.x, and what this build and
// this machine offer (backends, versions, GPUs).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gigaseg {

// The library's stream-ordered device memory pools (one per GPU, used for the temporaries of the
// CUDA paths): how much freed memory each keeps for the next call instead of handing it back to the
// driver at the next synchronisation. Keeping it saves a new mapping per call (tens to hundreds of
// microseconds); an application that needs the memory elsewhere lowers it or calls
// release_device_pools().
struct DevicePoolOptions {
  std::uint64_t kept_bytes = std::uint64_t(1) << 30;
};

struct RuntimeOptions {
  // Host threads for the OpenMP backend, 1..max_host_threads(); -1: Kokkos's default
  // (OMP_NUM_THREADS, else the hardware's). A count asked for, here or in OMP_NUM_THREADS, starts
  // without Kokkos's oversubscription warning.
  int threads = -1;
  int device = -1;  // GPU ordinal; -1: Kokkos's default (0)
  DevicePoolOptions device_pool;
};

// The most host threads the OpenMP backend of the Kokkos in use takes: Kokkos 3.x keeps its
// threads' team data in a fixed table of 512 entries and corrupts memory past it; later versions
// are held to 4096.
int max_host_threads() noexcept;

// Sets every device pool's kept memory, those made already and those made later. No effect in
// builds without CUDA.
void configure_device_pools(DevicePoolOptions const& options);

// Hands the memory every device pool keeps back to the driver now (memory in use stays). No effect
// in builds without CUDA.
void release_device_pools();

// Initialises Kokkos unless the application already has, and finalises what it initialised.
// Throws Error(resource) on a CUDA build when no usable GPU exists (Kokkos would abort), and
// Error(usage) naming RuntimeOptions::threads, or OMP_NUM_THREADS when the count comes from there,
// past max_host_threads() (Kokkos would crash), or RuntimeOptions::device for a GPU that does not
// exist.
class Runtime {
 public:
  explicit Runtime(RuntimeOptions options = {});
  ~Runtime();
  Runtime(Runtime const&) = delete;
  Runtime& operator=(Runtime const&) = delete;

 private:
  bool owns_kokkos_ = false;
};

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  std::size_t total_memory = 0;
  std::size_t free_memory = 0;
  int compute_major = 0, compute_minor = 0;
  int multiprocessors = 0;
  std::string pci_bus_id;
};

struct BuildInfo {
  std::string gigaseg_version;
  std::string kokkos_version;
  std::vector<std::string> backends;  // Kokkos backends compiled in: "cuda", "openmp", "serial"
  bool cuda_kernels = false;          // hand-tuned CUDA paths compiled in
  int host_threads = 0;               // threads of the initialised OpenMP backend
};

BuildInfo build_info();
// GPUs the CUDA runtime sees (empty in a host-only build or with no GPU). Safe before Kokkos.
std::vector<DeviceInfo> visible_devices();

}  // namespace gigaseg
