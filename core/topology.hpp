#pragma once
// The host's shape through hwloc: packages, cores, hardware threads, NUMA nodes, and which cores
// sit next to each GPU (for pinning the host threads that feed it).
#include <string>
#include <vector>

namespace gigaseg {

struct GpuLocality {
  std::string pci_bus_id;  // as CUDA reports it, e.g. "0000:41:00.0"
  std::string near_cpus;   // hwloc list syntax ("0-15"); empty when hwloc cannot tell
  int numa_node = -1;      // nearest NUMA node, -1 if unknown
};

struct HostTopology {
  std::string hwloc_version;
  int packages = 0;
  int cores = 0;
  int processing_units = 0;
  int numa_nodes = 0;
  std::vector<GpuLocality> gpus;
};

// Loads the topology (with PCI devices, when bus ids are given). Throws Error(internal) if hwloc
// cannot load the topology at all.
HostTopology query_topology(std::vector<std::string> const& gpu_pci_bus_ids = {});

}  // namespace gigaseg
