#include "gigaseg/core/cuda/device_query.hpp"

#include <cuda_runtime_api.h>

namespace gigaseg::cuda {

int device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return count;
}

DeviceMemory current_memory() {
  DeviceMemory memory;
  if (cudaMemGetInfo(&memory.free, &memory.total) != cudaSuccess) {
    (void)cudaGetLastError();
    return {};
  }
  memory.used = memory.total - memory.free;
  return memory;
}

std::vector<DeviceInfo> query_devices() {
  std::vector<DeviceInfo> devices;
  int count = 0;
  // No driver or no device is an ordinary answer here (the caller decides), not an error.
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    return devices;
  }
  int current = 0;
  (void)cudaGetDevice(&current);
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, ordinal) != cudaSuccess) continue;
    DeviceInfo info;
    info.ordinal = ordinal;
    info.name = prop.name;
    info.total_memory = prop.totalGlobalMem;
    info.compute_major = prop.major;
    info.compute_minor = prop.minor;
    info.multiprocessors = prop.multiProcessorCount;
    char bus[32] = {};
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, ordinal) == cudaSuccess) info.pci_bus_id = bus;
    std::size_t free_bytes = 0, total_bytes = 0;
    if (cudaSetDevice(ordinal) == cudaSuccess && cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess)
      info.free_memory = free_bytes;
    devices.push_back(info);
  }
  (void)cudaSetDevice(current);
  (void)cudaGetLastError();
  return devices;
}

}  // namespace gigaseg::cuda
