// Tuned region statistics for CUDA.
//
// Why a kernel of its own: the portable pass adds each run's sums to its component with atomics.
// A large component (a tissue region, or the percolating cluster of a random mask) then receives
// atomics from every run of every row at once, all on the same eleven words, and they serialise
// (the portable pass took 0.9 s on a 20000 x 20000 random mask on the H200).
//
// Design: a warp walks a strip of one row, 32 coalesced pixels a step. Per step it reduces its
// pixels by label (one ballot per distinct label, then __reduce_{add,min,max}_sync), and keeps the
// sums of the first two labels it meets in registers to the end of the strip, the carries: a large
// component that continues through the strip costs one set of atomics per strip instead of one per
// run. A group of any other label is added to global memory at once.
#include "gigaseg/backends/cuda/region_stats_cuda.hpp"

#include "gigaseg/algorithms/detail/region_stats_portable.hpp"
#include "gigaseg/core/cuda/cuda_check.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <climits>

namespace gigaseg::tuned {
namespace {

constexpr unsigned full_mask = 0xffffffffu;
constexpr int strip_pixels = 4096;
constexpr int rows_per_block = 8;  // one warp a row

struct Group {
  unsigned area = 0, perimeter = 0, x_min = 0, x_max = 0, i_min = 0, i_max = 0;
  unsigned long long sum_x = 0, sum_i = 0;
};

__device__ void add_to(Group& into, Group const& g) {
  into.area += g.area;
  into.perimeter += g.perimeter;
  into.sum_x += g.sum_x;
  into.sum_i += g.sum_i;
  into.x_min = min(into.x_min, g.x_min);
  into.x_max = max(into.x_max, g.x_max);
  into.i_min = min(into.i_min, g.i_min);
  into.i_max = max(into.i_max, g.i_max);
}

__device__ void flush(unsigned long long* sums, unsigned label, Group const& g, long long y) {
  using namespace gigaseg::detail;
  unsigned long long* s = sums + (unsigned long long)(label - 1) * stat_fields;
  atomicAdd(s + stat_area, (unsigned long long)g.area);
  atomicAdd(s + stat_sum_x, g.sum_x);
  atomicAdd(s + stat_sum_y, (unsigned long long)g.area * (unsigned long long)y);
  atomicAdd(s + stat_perimeter, (unsigned long long)g.perimeter);
  atomicAdd(s + stat_sum_intensity, g.sum_i);
  atomicMin(s + stat_x0, (unsigned long long)g.x_min);
  atomicMin(s + stat_y0, (unsigned long long)y);
  atomicMax(s + stat_x1, (unsigned long long)g.x_max);
  atomicMax(s + stat_y1, (unsigned long long)y);
  atomicMin(s + stat_min_intensity, (unsigned long long)g.i_min);
  atomicMax(s + stat_max_intensity, (unsigned long long)g.i_max);
}

template <class T>
__global__ void __launch_bounds__(32 * rows_per_block)
    stats_kernel(unsigned const* labels, long long label_pitch, unsigned char const* intensity,
                 long long intensity_pitch, long long width, long long height, unsigned components,
                 unsigned long long* sums, int* out_of_range) {
  int const lane = threadIdx.x & 31;
  long long const begin = (long long)blockIdx.x * strip_pixels;
  long long const end = min(begin + strip_pixels, width);
  for (long long y = (long long)blockIdx.y * rows_per_block + (threadIdx.x >> 5); y < height;
       y += (long long)gridDim.y * rows_per_block) {
    unsigned const* row = labels + y * label_pitch;
    unsigned const* above = y > 0 ? row - label_pitch : nullptr;
    unsigned const* below = y + 1 < height ? row + label_pitch : nullptr;
    T const* values = reinterpret_cast<T const*>(intensity + y * intensity_pitch);
    // Two carried labels, kept to the end of the strip (not given up at a gap: a blob mask's rows
    // alternate foreground and background every 24 pixels, and flushing at each gap sent millions
    // of atomics to its largest component's words).
    unsigned carried[2] = {0u, 0u};
    Group carry[2];
    for (long long x0 = begin; x0 < end; x0 += 32) {
      long long const x = x0 + lane;
      unsigned l = x < end ? row[x] : 0u;
      if (l > components) {
        *out_of_range = 1;
        l = 0;
      }
      unsigned perimeter = 0, value = 0;
      if (l != 0) {
        value = unsigned(values[x]);
        perimeter = unsigned(above == nullptr || above[x] != l) + unsigned(below == nullptr || below[x] != l) +
                    unsigned(x == 0 || row[x - 1] != l) + unsigned(x + 1 == width || row[x + 1] != l);
      }
      unsigned pending = __ballot_sync(full_mask, l != 0);
      while (pending != 0) {  // warp-uniform
        unsigned const current = __shfl_sync(full_mask, l, __ffs(pending) - 1);
        bool const member = l == current;
        unsigned const group_mask = __ballot_sync(full_mask, member);
        Group g;
        g.area = unsigned(__popc(group_mask));
        g.perimeter = __reduce_add_sync(full_mask, member ? perimeter : 0u);
        g.sum_x = __reduce_add_sync(full_mask, member ? unsigned(lane) : 0u) + (unsigned long long)x0 * g.area;
        g.sum_i = __reduce_add_sync(full_mask, member ? value : 0u);
        g.x_min = unsigned(x0) + __reduce_min_sync(full_mask, member ? unsigned(lane) : 31u);
        g.x_max = unsigned(x0) + __reduce_max_sync(full_mask, member ? unsigned(lane) : 0u);
        g.i_min = __reduce_min_sync(full_mask, member ? value : UINT_MAX);
        g.i_max = __reduce_max_sync(full_mask, member ? value : 0u);
        if (current == carried[0]) {
          add_to(carry[0], g);
        } else if (current == carried[1]) {
          add_to(carry[1], g);
        } else if (carried[0] == 0) {
          carried[0] = current;
          carry[0] = g;
        } else if (carried[1] == 0) {
          carried[1] = current;
          carry[1] = g;
        } else if (lane == 0) {
          flush(sums, current, g, y);
        }
        pending &= ~group_mask;
      }
    }
    for (int slot = 0; slot < 2; ++slot)
      if (carried[slot] != 0 && lane == 0) flush(sums, carried[slot], carry[slot], y);
  }
}

template <class T>
void launch(Kokkos::Cuda const& space, ImageView<Label const, Kokkos::CudaSpace> const& labels, index_t components,
            ImageView<T const, Kokkos::CudaSpace> const& intensity, unsigned long long* sums, int* out_of_range) {
  if (labels.empty()) return;
  GIGASEG_REQUIRE(labels.width() < (index_t(1) << 31), ErrorKind::input, "region statistics", "image too wide");
  unsigned const strips = unsigned((labels.width() + strip_pixels - 1) / strip_pixels);
  unsigned const row_blocks =
      unsigned(std::min<index_t>((labels.height() + rows_per_block - 1) / rows_per_block, 65535));
  stats_kernel<T><<<dim3(strips, row_blocks), 32 * rows_per_block, 0, space.cuda_stream()>>>(
      labels.data(), labels.pitch_bytes() / index_t(sizeof(Label)),
      reinterpret_cast<unsigned char const*>(intensity.data()), intensity.pitch_bytes(), labels.width(),
      labels.height(), unsigned(components), sums, out_of_range);
  GIGASEG_CUDA_CHECK(cudaGetLastError());
}

}  // namespace

void region_stats(Kokkos::Cuda const& space, ImageView<Label const, Kokkos::CudaSpace> const& labels,
                  index_t components, ImageView<std::uint8_t const, Kokkos::CudaSpace> const& intensity,
                  unsigned long long* sums, int* out_of_range) {
  launch(space, labels, components, intensity, sums, out_of_range);
}
void region_stats(Kokkos::Cuda const& space, ImageView<Label const, Kokkos::CudaSpace> const& labels,
                  index_t components, ImageView<std::uint16_t const, Kokkos::CudaSpace> const& intensity,
                  unsigned long long* sums, int* out_of_range) {
  launch(space, labels, components, intensity, sums, out_of_range);
}

}  // namespace gigaseg::tuned
