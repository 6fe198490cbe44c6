#pragma once
#include "gigaseg/core/device_memory.hpp"
#include "gigaseg/core/runtime.hpp"

#include <vector>

namespace gigaseg::cuda {
// The GPUs the CUDA runtime reports; empty when there are none or no driver.
std::vector<DeviceInfo> query_devices();
// Number of GPUs, without creating a context on any of them; 0 when there is no driver.
int device_count();
// The current device's memory (all 0 when it cannot be asked).
DeviceMemory current_memory();
}  // namespace gigaseg::cuda
