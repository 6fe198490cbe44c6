#include "gigaseg/core/topology.hpp"

#include "gigaseg/core/error.hpp"

#include <hwloc.h>

#include <cstdio>
#include <cstdlib>
#include <memory>

namespace gigaseg {
namespace {

struct TopologyDeleter {
  void operator()(hwloc_topology_t topology) const { hwloc_topology_destroy(topology); }
};
using TopologyHandle = std::unique_ptr<hwloc_topology, TopologyDeleter>;

int count(hwloc_topology_t topology, hwloc_obj_type_t type) {
  int const n = hwloc_get_nbobjs_by_type(topology, type);
  return n < 0 ? 0 : n;
}

GpuLocality locate(hwloc_topology_t topology, std::string const& bus_id) {
  GpuLocality gpu;
  gpu.pci_bus_id = bus_id;
  unsigned domain = 0, bus = 0, dev = 0, func = 0;
  if (std::sscanf(bus_id.c_str(), "%x:%x:%x.%x", &domain, &bus, &dev, &func) != 4) return gpu;
  hwloc_obj_t pci = hwloc_get_pcidev_by_busid(topology, domain, bus, dev, func);
  if (pci == nullptr) return gpu;
  hwloc_obj_t ancestor = hwloc_get_non_io_ancestor_obj(topology, pci);
  if (ancestor == nullptr || ancestor->cpuset == nullptr) return gpu;
  char* text = nullptr;
  if (hwloc_bitmap_list_asprintf(&text, ancestor->cpuset) >= 0 && text != nullptr) {
    gpu.near_cpus = text;
    std::free(text);
  }
  hwloc_obj_t numa =
      hwloc_get_next_obj_covering_cpuset_by_type(topology, ancestor->cpuset, HWLOC_OBJ_NUMANODE, nullptr);
  if (numa == nullptr && ancestor->memory_first_child != nullptr) numa = ancestor->memory_first_child;
  if (numa != nullptr) gpu.numa_node = static_cast<int>(numa->os_index);
  return gpu;
}

}  // namespace

HostTopology query_topology(std::vector<std::string> const& gpu_pci_bus_ids) {
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) GIGASEG_THROW(ErrorKind::internal, "hwloc", "hwloc_topology_init failed");
  TopologyHandle topology(raw);
  if (!gpu_pci_bus_ids.empty())  // PCI discovery is slow-ish; only when GPUs need locating
    hwloc_topology_set_type_filter(raw, HWLOC_OBJ_PCI_DEVICE, HWLOC_TYPE_FILTER_KEEP_ALL);
  if (hwloc_topology_load(raw) != 0) GIGASEG_THROW(ErrorKind::internal, "hwloc", "hwloc_topology_load failed");

  HostTopology info;
  unsigned const version = hwloc_get_api_version();
  info.hwloc_version = std::to_string(version >> 16) + "." + std::to_string((version >> 8) & 0xff) + "." +
                       std::to_string(version & 0xff);
  info.packages = count(raw, HWLOC_OBJ_PACKAGE);
  info.cores = count(raw, HWLOC_OBJ_CORE);
  info.processing_units = count(raw, HWLOC_OBJ_PU);
  info.numa_nodes = count(raw, HWLOC_OBJ_NUMANODE);
  for (auto const& bus_id : gpu_pci_bus_ids) info.gpus.push_back(locate(raw, bus_id));
  return info;
}

}  // namespace gigaseg
