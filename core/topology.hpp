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

// Where one of several processes sharing a node runs (the ranks of an MPI job on one host).
struct Placement {
  std::string cpus;         // the cores it is bound to, in hwloc list syntax ("0-3")
  int cores = 0;            // their number
  bool bound_here = false;  // bind_to_share bound it (false: its launcher had, or hwloc cannot bind)
};

// Binds this process (its threads, and those it starts later) to its share of the cores: of the
// cores near `near_cpus` (a GPU's, GpuLocality::near_cpus; all the host's when empty), split
// evenly among `sharing` processes, part `index` (0 .. sharing-1; each gets at least one core). A
// process its launcher bound already (to fewer than all the cores it may use, as mpirun's
// --bind-to does) keeps that binding, and so does one whose binding hwloc cannot set.
Placement bind_to_share(std::string const& near_cpus, int index, int sharing);

}  // namespace gigaseg
