// Tuned connected-component labelling for CUDA.
//
// Union-find over pixels, in place in the output label image: while labelling, label slot i holds
// the parent of pixel i, where i = y * P + x is the pitched index (P = the label image's pitch in
// elements). Pitched indices keep row-major order, so "the root is the smallest index" still
// means "the root is the component's first pixel", and a parent is read with no division. Four
// kernels and a scan:
//  1. local: each block labels a 32 x 32 tile in shared memory (tile plus a one-pixel halo above
//     and at the sides), with the same reduced link rules as the portable path
//     (algorithms/detail/label_portable.hpp): the links that stay inside the tile are made there,
//     first links by direct assignment (Komura) and second links with shared-memory atomic min;
//     every pixel's slot then receives the pitched index of its tile-local root (the first pixel
//     of its tile-local component). This is the block-based local pass of the fastest GPU
//     labelling algorithms (Allegretti et al., "Optimized block-based algorithms to label
//     connected components on GPUs", IEEE TPDS 2019), which resolves most merges in fast memory.
//  2. seams: the pixels on a tile's top row and side columns make their links that leave the tile,
//     with global atomic-min union-find (Playne & Hawick 2018).
//  3. compress: every pixel's slot becomes its root; a warp covers 32 consecutive pitched slots,
//     so one ballot gives a 32-bit word of a root bitmap and its population count.
//  4. scan of the words' counts (CUB, in place): roots before each word.
//  5. number: label = roots before the root + 1, from the bitmap word and its prefix. Each thread
//     reads and writes only its own slot, so this needs no second buffer.
// The numbering is canonical (components in order of their first pixel) whatever the order in
// which the atomics land, so every run gives the same labels.
//
// Benign races (as in the portable path): finds read parents while other threads lower them; a
// stale value is still an ancestor with a smaller index, and the atomic min returns the current
// value, so a merge retries until its link is confirmed. Loads in the merge loop bypass L1
// (__ldcg), which is not coherent across SMs.
#include "backends/cuda/label_cuda.hpp"

#include "algorithms/detail/label_portable.hpp"
#include "backends/cuda/cuda_check.hpp"

#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <limits>

namespace gigaseg::tuned {
namespace {

constexpr int tile_width = 32;
constexpr int tile_height = 32;
constexpr int tile_block_rows = 8;  // 32 x 8 threads, four rows each
constexpr unsigned background = 0xffffffffu;
constexpr unsigned full_mask = 0xffffffffu;

template <class T>
struct Input {
  unsigned char const* first_row;
  long long pitch_bytes;
  long long width, height;
  __device__ T at(long long y, long long x) const {
    return reinterpret_cast<T const*>(first_row + y * pitch_bytes)[x];
  }
};

struct Output {
  unsigned* slots;     // the label image, pitched
  long long pitch;     // in elements; a multiple of 32
  long long width, height;
};

// ---- 1. Local tiles -----------------------------------------------------------------------------

__device__ unsigned find_local(unsigned const volatile* parents, unsigned i) {
  unsigned parent = parents[i];
  while (parent != i) {
    i = parent;
    parent = parents[i];
  }
  return i;
}

__device__ void merge_local(unsigned* parents, unsigned a, unsigned b) {
  while (true) {
    a = find_local(parents, a);
    b = find_local(parents, b);
    if (a == b) return;
    if (a > b) {
      unsigned const t = a;
      a = b;
      b = t;
    }
    unsigned const old = atomicMin(&parents[b], a);
    if (old == b) return;
    b = old;
  }
}

template <class T>
__global__ void __launch_bounds__(tile_width* tile_block_rows)
    local_kernel(Input<T> in, Output out, int connectivity, bool equal_value) {
  // pixels[r + 1][c + 1] is tile pixel (r, c); row 0 and columns 0 and tile_width + 1 are the halo.
  __shared__ T pixels[tile_height + 1][tile_width + 2];
  __shared__ unsigned parents[tile_height * tile_width];
  long long const x0 = (long long)blockIdx.x * tile_width, y0 = (long long)blockIdx.y * tile_height;
  for (int r = threadIdx.y; r < tile_height + 1; r += tile_block_rows)
    for (int c = threadIdx.x; c < tile_width + 2; c += tile_width) {
      long long const y = y0 + r - 1, x = x0 + c - 1;
      pixels[r][c] = (y >= 0 && y < in.height && x >= 0 && x < in.width) ? in.at(y, x) : T(0);
    }
  __syncthreads();

  detail::Connects<T> const connects{equal_value};
  int const c = threadIdx.x;
  detail::Neighbour links[tile_height / tile_block_rows][2];
  int counts[tile_height / tile_block_rows];
  // Links, and the first one made directly where it stays in the tile.
#pragma unroll
  for (int k = 0; k < tile_height / tile_block_rows; ++k) {
    int const r = threadIdx.y + k * tile_block_rows;
    unsigned const local = r * tile_width + c;
    T const p = pixels[r + 1][c + 1];
    counts[k] = 0;
    if (p == 0) {
      parents[local] = background;
      continue;
    }
    counts[k] = detail::reduced_links(connects(p, pixels[r][c]), connects(p, pixels[r][c + 1]),
                                      connects(p, pixels[r][c + 2]), connects(p, pixels[r + 1][c]), connectivity,
                                      links[k][0], links[k][1]);
    unsigned parent = local;
    if (counts[k] > 0) {
      int const rr = r + detail::neighbour_dy(links[k][0]), cc = c + detail::neighbour_dx(links[k][0]);
      if (rr >= 0 && cc >= 0 && cc < tile_width) parent = unsigned(rr * tile_width + cc);
    }
    parents[local] = parent;
  }
  __syncthreads();
  // Second links inside the tile.
#pragma unroll
  for (int k = 0; k < tile_height / tile_block_rows; ++k) {
    if (counts[k] < 2) continue;
    int const r = threadIdx.y + k * tile_block_rows;
    int const rr = r + detail::neighbour_dy(links[k][1]), cc = c + detail::neighbour_dx(links[k][1]);
    if (rr >= 0 && cc >= 0 && cc < tile_width) merge_local(parents, unsigned(r * tile_width + c), unsigned(rr * tile_width + cc));
  }
  __syncthreads();
  // Each slot gets the pitched index of its tile-local root.
#pragma unroll
  for (int k = 0; k < tile_height / tile_block_rows; ++k) {
    int const r = threadIdx.y + k * tile_block_rows;
    long long const y = y0 + r, x = x0 + c;
    if (y >= out.height || x >= out.width) continue;
    unsigned const local = r * tile_width + c;
    unsigned slot = background;
    if (parents[local] != background) {
      unsigned const root = find_local(parents, local);
      slot = unsigned((y0 + root / tile_width) * out.pitch + x0 + root % tile_width);
    }
    out.slots[y * out.pitch + x] = slot;
  }
}

// ---- 2. Seams -----------------------------------------------------------------------------------

__device__ unsigned find_global(unsigned const* slots, unsigned i) {
  unsigned parent = __ldcg(slots + i);
  while (parent != i) {
    i = parent;
    parent = __ldcg(slots + i);
  }
  return i;
}

__device__ void merge_global(unsigned* slots, unsigned a, unsigned b) {
  while (true) {
    a = find_global(slots, a);
    b = find_global(slots, b);
    if (a == b) return;
    if (a > b) {
      unsigned const t = a;
      a = b;
      b = t;
    }
    unsigned const old = atomicMin(slots + b, a);
    if (old == b) return;
    b = old;
  }
}

// One block a tile; thread t < 32: top row, column t; then the left column (rows 1..31), then the
// right column (rows 1..31). Only those pixels have links that can leave the tile.
constexpr int seam_threads = tile_width + 2 * (tile_height - 1);

template <class T>
__global__ void __launch_bounds__(96) seam_kernel(Input<T> in, Output out, int connectivity, bool equal_value) {
  int const t = threadIdx.x;
  if (t >= seam_threads) return;
  int const r = t < tile_width ? 0 : t < tile_width + tile_height - 1 ? t - tile_width + 1 : t - tile_width - tile_height + 2;
  int const c = t < tile_width ? t : t < tile_width + tile_height - 1 ? 0 : tile_width - 1;
  long long const y = (long long)blockIdx.y * tile_height + r, x = (long long)blockIdx.x * tile_width + c;
  if (y >= in.height || x >= in.width) return;
  T const p = in.at(y, x);
  if (p == 0) return;
  detail::Connects<T> const connects{equal_value};
  bool const up = y > 0, left = x > 0, right = x + 1 < in.width;
  detail::Neighbour links[2];
  int const count = detail::reduced_links(up && left && connects(p, in.at(y - 1, x - 1)), up && connects(p, in.at(y - 1, x)),
                                          up && right && connects(p, in.at(y - 1, x + 1)),
                                          left && connects(p, in.at(y, x - 1)), connectivity, links[0], links[1]);
  unsigned const self = unsigned(y * out.pitch + x);
  for (int k = 0; k < count; ++k) {
    int const rr = r + detail::neighbour_dy(links[k]), cc = c + detail::neighbour_dx(links[k]);
    if (rr >= 0 && cc >= 0 && cc < tile_width) continue;  // made by the local pass
    long long const ny = y + detail::neighbour_dy(links[k]), nx = x + detail::neighbour_dx(links[k]);
    merge_global(out.slots, self, unsigned(ny * out.pitch + nx));
  }
}

// ---- 3. Compress, root bitmap -------------------------------------------------------------------

// 32 x 8 threads: each warp one row segment of 32 slots (the pitch is a multiple of 32, so a
// segment is one bitmap word). Padding slots past the width count as non-roots.
__global__ void __launch_bounds__(256)
    compress_kernel(Output out, unsigned* bitmap, unsigned* word_counts) {
  long long const x = (long long)blockIdx.x * 32 + threadIdx.x;
  for (long long y = (long long)blockIdx.y * 8 + threadIdx.y; y < out.height; y += (long long)gridDim.y * 8) {
    unsigned const i = unsigned(y * out.pitch + x);
    bool root = false;
    if (x < out.width) {
      unsigned const parent = out.slots[i];
      if (parent != background) {
        unsigned const r = find_global(out.slots, parent);
        if (r != parent) out.slots[i] = r;
        root = r == i;
      }
    }
    unsigned const word = __ballot_sync(full_mask, root);
    if (threadIdx.x == 0) {
      bitmap[i >> 5] = word;
      word_counts[i >> 5] = unsigned(__popc(word));
    }
  }
}

// ---- 5. Numbers ---------------------------------------------------------------------------------

__global__ void __launch_bounds__(256)
    number_kernel(Output out, unsigned const* bitmap, unsigned const* roots_before_word) {
  long long const x = (long long)blockIdx.x * 32 + threadIdx.x;
  if (x >= out.width) return;
  for (long long y = (long long)blockIdx.y * 8 + threadIdx.y; y < out.height; y += (long long)gridDim.y * 8) {
    unsigned* slot = out.slots + y * out.pitch + x;
    unsigned const root = *slot;
    if (root == background) {
      *slot = 0;
    } else {
      unsigned const word = root >> 5, below = (1u << (root & 31)) - 1u;
      *slot = roots_before_word[word] + unsigned(__popc(bitmap[word] & below)) + 1u;
    }
  }
}

__global__ void total_kernel(unsigned const* bitmap, unsigned const* roots_before_word, long long words,
                             unsigned long long* total) {
  *total = (unsigned long long)roots_before_word[words - 1] + unsigned(__popc(bitmap[words - 1]));
}

// Stream-ordered scratch (cudaMallocAsync's pool: no device-wide synchronisation, reused between
// calls), freed when it goes out of scope.
struct Scratch {
  void* pointer = nullptr;
  cudaStream_t stream;
  Scratch(std::size_t bytes, cudaStream_t s) : stream(s) { GIGASEG_CUDA_CHECK(cudaMallocAsync(&pointer, bytes, stream)); }
  ~Scratch() { cudaFreeAsync(pointer, stream); }
  Scratch(Scratch const&) = delete;
  Scratch& operator=(Scratch const&) = delete;
  template <class U>
  U* as() const {
    return static_cast<U*>(pointer);
  }
};

template <class T>
bool label_tiles(Kokkos::Cuda const& space, ImageView<T const, Kokkos::CudaSpace> const& image,
                 ImageView<Label, Kokkos::CudaSpace> const& labels, LabelParams const& params, bool wide,
                 index_t& components) {
  long long const pitch = labels.pitch_bytes() / (long long)sizeof(Label);
  long long const slots = pitch * labels.height();
  if (wide || labels.pitch_bytes() % 128 != 0 || slots > (long long)std::numeric_limits<unsigned>::max() - 1)
    return false;
  cudaStream_t const stream = space.cuda_stream();
  Input<T> const in{reinterpret_cast<unsigned char const*>(image.data()), image.pitch_bytes(), image.width(),
                    image.height()};
  Output const out{labels.data(), pitch, labels.width(), labels.height()};
  unsigned const tiles_x = unsigned((image.width() + tile_width - 1) / tile_width);
  unsigned const tiles_y = unsigned((image.height() + tile_height - 1) / tile_height);
  GIGASEG_REQUIRE(tiles_y <= 65535u, ErrorKind::input, "label", "image taller than 2097120 rows");
  local_kernel<T><<<dim3(tiles_x, tiles_y), dim3(tile_width, tile_block_rows), 0, stream>>>(in, out, params.connectivity,
                                                                                            params.equal_value);
  GIGASEG_CUDA_CHECK(cudaGetLastError());
  seam_kernel<T><<<dim3(tiles_x, tiles_y), 96, 0, stream>>>(in, out, params.connectivity, params.equal_value);
  GIGASEG_CUDA_CHECK(cudaGetLastError());

  long long const words = slots / 32;
  Scratch bitmap(std::size_t(words) * sizeof(unsigned), stream);
  Scratch counts(std::size_t(words) * sizeof(unsigned), stream);
  dim3 const grid(unsigned(pitch / 32), unsigned(std::min<long long>((labels.height() + 7) / 8, 65535)));
  compress_kernel<<<grid, dim3(32, 8), 0, stream>>>(out, bitmap.as<unsigned>(), counts.as<unsigned>());
  GIGASEG_CUDA_CHECK(cudaGetLastError());
  std::size_t scan_bytes = 0;
  GIGASEG_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, counts.as<unsigned>(), counts.as<unsigned>(),
                                                   int(words), stream));
  Scratch scan(std::max<std::size_t>(scan_bytes, 1), stream);
  GIGASEG_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scan.pointer, scan_bytes, counts.as<unsigned>(),
                                                   counts.as<unsigned>(), int(words), stream));
  number_kernel<<<grid, dim3(32, 8), 0, stream>>>(out, bitmap.as<unsigned>(), counts.as<unsigned>());
  GIGASEG_CUDA_CHECK(cudaGetLastError());
  Scratch total(sizeof(unsigned long long), stream);
  total_kernel<<<1, 1, 0, stream>>>(bitmap.as<unsigned>(), counts.as<unsigned>(), words, total.as<unsigned long long>());
  GIGASEG_CUDA_CHECK(cudaGetLastError());
  unsigned long long host_total = 0;
  GIGASEG_CUDA_CHECK(cudaMemcpyAsync(&host_total, total.pointer, sizeof host_total, cudaMemcpyDeviceToHost, stream));
  GIGASEG_CUDA_CHECK(cudaStreamSynchronize(stream));
  components = index_t(host_total);
  return true;
}

}  // namespace

bool label(Kokkos::Cuda const& space, ImageView<std::uint8_t const, Kokkos::CudaSpace> const& image,
           ImageView<Label, Kokkos::CudaSpace> const& labels, LabelParams const& params, bool wide,
           index_t& components) {
  return label_tiles(space, image, labels, params, wide, components);
}
bool label(Kokkos::Cuda const& space, ImageView<std::uint16_t const, Kokkos::CudaSpace> const& image,
           ImageView<Label, Kokkos::CudaSpace> const& labels, LabelParams const& params, bool wide,
           index_t& components) {
  return label_tiles(space, image, labels, params, wide, components);
}
bool label(Kokkos::Cuda const& space, ImageView<std::uint32_t const, Kokkos::CudaSpace> const& image,
           ImageView<Label, Kokkos::CudaSpace> const& labels, LabelParams const& params, bool wide,
           index_t& components) {
  return label_tiles(space, image, labels, params, wide, components);
}

}  // namespace gigaseg::tuned
