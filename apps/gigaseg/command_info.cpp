// gigaseg info [IN]: versions, backends, GPUs, host topology and the small-image threshold; with an
// image, its format and size, and for a whole-slide image its levels and resolution.
#include "apps/gigaseg/cli.hpp"
#include "gigaseg/core/io/image_file.hpp"
#include "gigaseg/core/topology.hpp"

#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

namespace gigaseg::cli {
namespace {

// The image's format, size and resolution; a slide's vendor, levels and associated images.
void describe_image(Session& session, std::string const& path) {
  ImageFormat const format = detect_format(path);
  auto& r = session.report;
  r["command"] = "info";
  r["input"] = path;
  r["format"] = to_string(format);
  std::ostringstream text;
  text << path << ": ";
  if (format != ImageFormat::slide) {
    ImageShape const shape = image_shape(path);
    r["width"] = shape.width;
    r["height"] = shape.height;
    r["levels"] = 1;
    text << to_string(format) << ", " << shape.width << " x " << shape.height << " pixels, one level\n";
  } else {
    SlideInfo const slide = slide_info(path);
    r["vendor"] = slide.vendor;
    r["mpp_x"] = slide.mpp_x > 0 ? nlohmann::json(slide.mpp_x) : nlohmann::json();
    r["mpp_y"] = slide.mpp_y > 0 ? nlohmann::json(slide.mpp_y) : nlohmann::json();
    r["objective_power"] = slide.objective_power > 0 ? nlohmann::json(slide.objective_power) : nlohmann::json();
    r["associated_images"] = slide.associated_images;
    r["levels"] = nlohmann::json::array();
    text << "whole-slide image (" << slide.vendor << "), " << slide.levels.size() << " level"
         << (slide.levels.size() == 1 ? "" : "s");
    if (slide.mpp_x > 0) text << ", " << slide.mpp_x << " x " << slide.mpp_y << " microns per pixel at level 0";
    if (slide.objective_power > 0) text << ", " << slide.objective_power << "x objective";
    text << "\n";
    for (std::size_t l = 0; l < slide.levels.size(); ++l) {
      SlideLevel const& level = slide.levels[l];
      nlohmann::json entry = {
          {"level", l}, {"width", level.width}, {"height", level.height}, {"downsample", level.downsample}};
      text << "  level " << l << ": " << level.width << " x " << level.height << ", downsample " << level.downsample;
      if (slide.mpp_x > 0) {
        entry["mpp"] = slide.mpp_x * level.downsample;
        text << ", " << slide.mpp_x * level.downsample << " microns per pixel";
      }
      text << "\n";
      r["levels"].push_back(entry);
    }
    if (!slide.associated_images.empty()) {
      text << "  associated images:";
      for (auto const& name : slide.associated_images) text << ' ' << name;
      text << "\n";
    }
  }
  if (!session.options.json && !session.options.quiet) std::cout << text.str();
}

}  // namespace

Command make_info_command(CLI::App& parent) {
  Command command;
  command.name = "info";
  command.app = parent.add_subcommand("info", "versions, backends, devices, host topology; an image's levels");
  auto input = std::make_shared<std::string>();
  command.app->add_option("IN", *input, "an image: its format and size; a whole-slide image's levels and resolution");
  command.run = [input](Session& session) {
    if (!input->empty()) {
      describe_image(session, *input);
      return;
    }
    BuildInfo const build = build_info();
    auto const devices = visible_devices();
    std::vector<std::string> bus_ids;
    for (auto const& d : devices) bus_ids.push_back(d.pci_bus_id);
    HostTopology const topology = query_topology(bus_ids);
    auto& context = session.context;
    Backend const large = context.resolve(index_t(1) << 40, OpFamily::pipeline);

    auto& r = session.report;
    r["command"] = "info";
    r["backend"] = to_string(large);
    r["gigaseg_version"] = build.gigaseg_version;
    r["kokkos_version"] = build.kokkos_version;
    r["backends"] = build.backends;
    r["cuda_kernels"] = build.cuda_kernels;
    r["host_threads"] = build.host_threads;
    r["small_image_pixels"] = nlohmann::json::object();
    for (int f = 0; f < op_family_count; ++f) {  // null: never (the family stays on the host)
      index_t const pixels = context.small_image_pixels(OpFamily(f));
      r["small_image_pixels"][to_string(OpFamily(f))] =
          pixels == small_image_never ? nlohmann::json() : nlohmann::json(pixels);
    }
    r["devices"] = nlohmann::json::array();
    for (std::size_t i = 0; i < devices.size(); ++i) {
      auto const& d = devices[i];
      nlohmann::json gpu = {
          {"ordinal", d.ordinal},
          {"name", d.name},
          {"memory_bytes", d.total_memory},
          {"free_memory_bytes", d.free_memory},
          {"compute_capability", std::to_string(d.compute_major) + "." + std::to_string(d.compute_minor)},
          {"multiprocessors", d.multiprocessors},
          {"pci_bus_id", d.pci_bus_id}};
      if (i < topology.gpus.size()) {
        gpu["near_cpus"] = topology.gpus[i].near_cpus;
        gpu["numa_node"] = topology.gpus[i].numa_node;
      }
      r["devices"].push_back(gpu);
    }
    r["host"] = {{"hwloc_api_version", topology.hwloc_version},
                 {"packages", topology.packages},
                 {"cores", topology.cores},
                 {"processing_units", topology.processing_units},
                 {"numa_nodes", topology.numa_nodes}};
    // Under ranks: where each one runs (its host, GPU and cores), gathered for rank 0 to print.
    if (session.group != nullptr) {
      char host[256] = {};
      ::gethostname(host, sizeof host - 1);
      int const device = session.device;
      std::string bus = "";
      for (auto const& d : devices)
        if (d.ordinal == device) bus = d.pci_bus_id;
      nlohmann::json const mine = {{"rank", session.group->rank()},
                                   {"host", host},
                                   {"gpu", device},
                                   {"gpu_pci_bus_id", bus},
                                   {"cpus", session.bound_cpus},
                                   {"host_threads", build.host_threads}};
      std::string const text = mine.dump();
      for (auto const& bytes : session.group->all_gather({text.begin(), text.end()}))
        r["ranks"].push_back(nlohmann::json::parse(bytes.begin(), bytes.end()));
      r["mpi_cuda_aware"] = session.mpi_cuda_aware;
    }
    if (session.options.json || session.options.quiet) return;

    std::cout << "gigaseg " << build.gigaseg_version << "\n"
              << "Kokkos " << build.kokkos_version << "\n"
              << "backends:";
    for (auto const& b : build.backends) std::cout << ' ' << b;
    std::cout << (build.cuda_kernels ? " (tuned CUDA kernels)" : "") << "\n"
              << "backend for large images: " << to_string(large) << " (requested " << to_string(context.requested())
              << ")\n"
              << "small-image thresholds (pixels; smaller images run on the host under --backend auto):";
    for (int f = 0; f < op_family_count; ++f) {
      index_t const pixels = context.small_image_pixels(OpFamily(f));
      std::cout << (f == 0 ? " " : ", ") << to_string(OpFamily(f)) << ' '
                << (pixels == small_image_never ? std::string("never (host only)") : std::to_string(pixels));
    }
    std::cout << "\nhost threads: " << build.host_threads << "\n";
    if (devices.empty()) std::cout << "GPUs: none\n";
    for (std::size_t i = 0; i < devices.size(); ++i) {
      auto const& d = devices[i];
      std::printf("GPU %d: %s, %.1f GiB (%.1f GiB free), compute %d.%d, %d SMs, PCI %s", d.ordinal, d.name.c_str(),
                  double(d.total_memory) / (1 << 30), double(d.free_memory) / (1 << 30), d.compute_major,
                  d.compute_minor, d.multiprocessors, d.pci_bus_id.c_str());
      if (i < topology.gpus.size() && !topology.gpus[i].near_cpus.empty())
        std::printf(", near CPUs %s", topology.gpus[i].near_cpus.c_str());
      std::printf("\n");
      std::fflush(stdout);
    }
    std::cout << "host (hwloc API " << topology.hwloc_version << "): " << topology.packages << " package(s), "
              << topology.cores << " cores, " << topology.processing_units << " hardware threads, "
              << topology.numa_nodes << " NUMA node(s)\n";
    if (r.contains("ranks")) {
      std::cout << "MPI: " << r["ranks"].size() << " ranks, "
                << (session.mpi_cuda_aware ? "CUDA-aware" : "not CUDA-aware (messages staged through host memory)")
                << "\n";
      for (auto const& rank : r["ranks"])
        std::cout << "rank " << rank["rank"].get<int>() << " on " << rank["host"].get<std::string>() << ": "
                  << (rank["gpu"].get<int>() < 0 ? std::string("no GPU")
                                                 : "GPU " + std::to_string(rank["gpu"].get<int>()) + " (PCI " +
                                                       rank["gpu_pci_bus_id"].get<std::string>() + ")")
                  << ", cores " << rank["cpus"].get<std::string>() << ", " << rank["host_threads"].get<int>()
                  << " host threads\n";
    }
  };
  return command;
}

}  // namespace gigaseg::cli
