#pragma once
// Process-wide set-up: Kokkos initialisation across Kokkos 3.4 .. 5.x, and what this build and
// this machine offer (backends, versions, GPUs).
#include <cstddef>
#include <string>
#include <vector>

namespace gigaseg {

struct RuntimeOptions {
  int threads = -1;  // host threads for the OpenMP backend; -1: Kokkos's default (OMP_NUM_THREADS)
  int device = -1;   // GPU ordinal; -1: Kokkos's default (0)
};

// Initialises Kokkos unless the application already has, and finalises what it initialised.
// Throws Error(resource) on a CUDA build when no usable GPU exists (Kokkos would abort).
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
