#pragma once
// The current GPU's memory, as the driver reports it.
#include <cstddef>

namespace gigaseg {

// total and free as cudaMemGetInfo gives them; used = total - free, by every process on the GPU.
// All 0 in a host-only build or without a GPU. The tile engine samples it to report its peak
// device memory, and the command line's default device budget is a part of what is free.
struct DeviceMemory {
  std::size_t total = 0, free = 0, used = 0;
};
DeviceMemory current_device_memory();

}  // namespace gigaseg
