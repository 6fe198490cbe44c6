#include "gigaseg/core/topology.hpp"

#include "gigaseg/core/error.hpp"

#include <hwloc.h>

#include <algorithm>
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

namespace {

// `set` in hwloc list syntax, and its cores.
Placement describe(hwloc_topology_t topology, hwloc_const_cpuset_t set) {
  Placement placement;
  char* text = nullptr;
  if (hwloc_bitmap_list_asprintf(&text, set) >= 0 && text != nullptr) {
    placement.cpus = text;
    std::free(text);
  }
  placement.cores = std::max(1, hwloc_get_nbobjs_inside_cpuset_by_type(topology, set, HWLOC_OBJ_CORE));
  return placement;
}

struct BitmapDeleter {
  void operator()(hwloc_bitmap_s* set) const { hwloc_bitmap_free(set); }
};
using Bitmap = std::unique_ptr<hwloc_bitmap_s, BitmapDeleter>;

}  // namespace

Placement bind_to_share(std::string const& near_cpus, int index, int sharing) {
  GIGASEG_REQUIRE(sharing >= 1 && index >= 0 && index < sharing, ErrorKind::usage, "bind_to_share",
                  "index must be 0 .. sharing - 1");
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) GIGASEG_THROW(ErrorKind::internal, "hwloc", "hwloc_topology_init failed");
  TopologyHandle topology(raw);
  if (hwloc_topology_load(raw) != 0) GIGASEG_THROW(ErrorKind::internal, "hwloc", "hwloc_topology_load failed");
  hwloc_const_cpuset_t const allowed = hwloc_topology_get_allowed_cpuset(raw);
  Bitmap current(hwloc_bitmap_alloc());
  if (hwloc_get_cpubind(raw, current.get(), HWLOC_CPUBIND_PROCESS) != 0) hwloc_bitmap_copy(current.get(), allowed);
  if (!hwloc_bitmap_isincluded(allowed, current.get())) return describe(raw, current.get());  // the launcher's
  // The cores of the near set (or of the host), and this process's run of them.
  Bitmap near_set(hwloc_bitmap_alloc());
  if (near_cpus.empty() || hwloc_bitmap_list_sscanf(near_set.get(), near_cpus.c_str()) != 0)
    hwloc_bitmap_copy(near_set.get(), allowed);
  hwloc_bitmap_and(near_set.get(), near_set.get(), allowed);
  int const cores = hwloc_get_nbobjs_inside_cpuset_by_type(raw, near_set.get(), HWLOC_OBJ_CORE);
  if (cores <= 0) return describe(raw, current.get());
  int const first = int(long(index) * cores / sharing);
  int const last = std::max(first + 1, int(long(index + 1) * cores / sharing));
  Bitmap share(hwloc_bitmap_alloc());
  for (int c = first; c < last && c < cores; ++c)
    hwloc_bitmap_or(share.get(), share.get(),
                    hwloc_get_obj_inside_cpuset_by_type(raw, near_set.get(), HWLOC_OBJ_CORE, unsigned(c))->cpuset);
  hwloc_bitmap_and(share.get(), share.get(), allowed);
  if (hwloc_bitmap_iszero(share.get()) || hwloc_set_cpubind(raw, share.get(), HWLOC_CPUBIND_PROCESS) != 0)
    return describe(raw, current.get());
  Placement placement = describe(raw, share.get());
  placement.bound_here = true;
  return placement;
}

}  // namespace gigaseg
