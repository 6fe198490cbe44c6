// Tuned connected-component labelling for CUDA.
//
// Union-find over pixels, in place in the output label image: while labelling, label slot i holds
// the parent of pixel i, where i = y * P + x is the pitched index (P = the label image's pitch in
// elements). Pitched indices keep row-major order, so "the root is the smallest index" still
// means "the root is the component's first pixel", and a parent is read with no division. Four
// kernels and a scan:
//  1. local: each block labels a 32 x 32 tile in shared memory as if the tile were the whole
//     image (first links by direct assignment, Komura; second links with shared-memory atomic
//     min), then every pixel's slot receives the pitched index of its tile-local root (the first
//     pixel of its tile-local component), and the tile-local roots are marked in a bitmap. This is
//     the block-based local pass of the fastest GPU labelling algorithms (Allegretti et al.,
//     "Optimized block-based algorithms to label connected components on GPUs", IEEE TPDS 2019),
//     which resolves most merges in fast memory.
//  2. seams: the pixels on a tile's top row and side columns make their links that leave the tile,
//     with global atomic-min union-find (Playne & Hawick 2018).
//  3. flatten and compress: the tile-local roots (marked in a bitmap by the local pass: the only
//     slots the seams change) are resolved to their roots, with path halving; then every slot
//     becomes its root in two hops; a warp covers 32 consecutive pitched slots, so one ballot
//     gives a 32-bit word of a root bitmap and its population count.
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
#include "backends/cuda/stream_scratch.hpp"

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

// Path halving while it walks. The shortcuts are atomic minima: an ancestor has a smaller index,
// so a minimum never undoes a shorter shortcut another thread made, and the walks are free of
// shared-memory races (compute-sanitizer racecheck flagged the plain stores of the first version,
// benign as they were).
__device__ unsigned find_local_halving(unsigned* parents, unsigned i) {
  unsigned const volatile* view = parents;
  unsigned parent = view[i];
  while (parent != i) {
    unsigned const grandparent = view[parent];
    if (grandparent != parent) atomicMin(parents + i, grandparent);
    i = parent;
    parent = grandparent;
  }
  return i;
}

// The local pass labels the tile as if it were the whole image: the reduced link rules with every
// neighbour outside the tile taken as background. Its components are then exactly the tile's own,
// one local root each. (The first version applied the global rules and left the out-of-tile links
// to the seams; since "N foreground: link N alone" sends a tile's whole top row outside, every
// column of a solid tile stayed a local component of its own, and the seams and chains paid for
// it: 11.6 ms for the local pass on the blob mask.) Correctness with the seams: for every pixel, the
// global rules' links that stay in the tile are also links of the tile rules (checked case by case:
// inside the tile the rules coincide; on the top row the only in-tile neighbour is W, linked by both
// when N is background; on the side columns N, NE or NW, W are picked alike), and the seam pass
// makes the global rules' links that leave the tile. So every link of the global rules is made,
// plus some redundant ones, and the induction of label_portable.hpp holds.
template <class T>
__global__ void __launch_bounds__(tile_width* tile_block_rows)
    local_kernel(Input<T> in, Output out, int connectivity, bool equal_value, unsigned* local_roots) {
  __shared__ T pixels[tile_height][tile_width];
  __shared__ unsigned parents[tile_height * tile_width];
  long long const x0 = (long long)blockIdx.x * tile_width, y0 = (long long)blockIdx.y * tile_height;
  int const c = threadIdx.x;
#pragma unroll
  for (int k = 0; k < tile_height / tile_block_rows; ++k) {
    int const r = threadIdx.y + k * tile_block_rows;
    long long const y = y0 + r, x = x0 + c;
    pixels[r][c] = (y < in.height && x < in.width) ? in.at(y, x) : T(0);
  }
  __syncthreads();

  detail::Connects<T> const connects{equal_value};
  detail::Neighbour links[tile_height / tile_block_rows][2];
  int counts[tile_height / tile_block_rows];
  // Links, the first made directly (it always precedes the pixel, so parents stay below indices).
#pragma unroll
  for (int k = 0; k < tile_height / tile_block_rows; ++k) {
    int const r = threadIdx.y + k * tile_block_rows;
    unsigned const local = r * tile_width + c;
    T const p = pixels[r][c];
    counts[k] = 0;
    if (p == 0) {
      parents[local] = background;
      continue;
    }
    bool const up = r > 0, left = c > 0, right = c + 1 < tile_width;
    counts[k] = detail::reduced_links(up && left && connects(p, pixels[r - 1][c - 1]), up && connects(p, pixels[r - 1][c]),
                                      up && right && connects(p, pixels[r - 1][c + 1]), left && connects(p, pixels[r][c - 1]),
                                      connectivity, links[k][0], links[k][1]);
    unsigned parent = local;
    if (counts[k] > 0)
      parent = unsigned((r + detail::neighbour_dy(links[k][0])) * tile_width + c + detail::neighbour_dx(links[k][0]));
    parents[local] = parent;
  }
  __syncthreads();
  // Second links.
#pragma unroll
  for (int k = 0; k < tile_height / tile_block_rows; ++k) {
    if (counts[k] < 2) continue;
    int const r = threadIdx.y + k * tile_block_rows;
    int const rr = r + detail::neighbour_dy(links[k][1]), cc = c + detail::neighbour_dx(links[k][1]);
    merge_local(parents, unsigned(r * tile_width + c), unsigned(rr * tile_width + cc));
  }
  __syncthreads();
  // Each slot gets the pitched index of its tile-local root; the tile-local roots are marked in a
  // bitmap (a warp is one tile row of 32 slots: one bitmap word), the only slots the seams change.
#pragma unroll
  for (int k = 0; k < tile_height / tile_block_rows; ++k) {
    int const r = threadIdx.y + k * tile_block_rows;
    long long const y = y0 + r, x = x0 + c;
    if (y >= out.height) continue;  // the same for the whole warp
    unsigned const local = r * tile_width + c;
    bool local_root = false;
    if (x < out.width) {
      unsigned slot = background;
      if (parents[local] != background) {
        unsigned const root = find_local_halving(parents, local);
        slot = unsigned((y0 + root / tile_width) * out.pitch + x0 + root % tile_width);
        local_root = root == local;
      }
      out.slots[y * out.pitch + x] = slot;
    }
    unsigned const word = __ballot_sync(full_mask, local_root);
    if (c == 0) local_roots[(y * out.pitch + x0) >> 5] = word;
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

// ---- 3. Flatten the tile-local roots, then compress every slot, root bitmap -------------------

// After the seams, only tile-local roots can have parents outside their tile, and chains of them
// can be long (a component across many tiles). Each local root is resolved once here, with path
// halving so that concurrent walks along one chain shorten it for each other. The halving writes
// are atomic minima, not stores: a plain store of a grandparent could land after another thread
// had already set that slot to the root, and undo it (a race the first version had, caught by the
// 20-run test). Ancestors have smaller indices and the root is the smallest, so with minima every
// slot ends at its root and no write ever lengthens a chain. Every other slot then needs two hops.
__global__ void __launch_bounds__(256) flatten_kernel(unsigned* slots, unsigned const* local_roots, long long words) {
  for (long long w = (long long)blockIdx.x * blockDim.x + threadIdx.x; w < words; w += (long long)gridDim.x * blockDim.x) {
    unsigned bits = local_roots[w];
    while (bits != 0) {
      unsigned const i = unsigned(w * 32 + __ffs(bits) - 1);
      bits &= bits - 1;
      unsigned node = i, parent = __ldcg(slots + node);
      while (parent != node) {
        unsigned const grandparent = __ldcg(slots + parent);
        if (grandparent != parent) atomicMin(slots + node, grandparent);
        node = parent;
        parent = grandparent;
      }
      atomicMin(slots + i, node);
    }
  }
}

// 32 x 8 threads: each warp one row segment of 32 slots (the pitch is a multiple of 32, so a
// segment is one bitmap word). Padding slots past the width count as non-roots.
__global__ void __launch_bounds__(256)
    compress_kernel(Output out, unsigned* bitmap, unsigned* word_counts) {
  long long const x = (long long)blockIdx.x * 32 + threadIdx.x;
  for (long long y = (long long)blockIdx.y * 8 + threadIdx.y; y < out.height; y += (long long)gridDim.y * 8) {
    unsigned const i = unsigned(y * out.pitch + x);
    bool root = false;
    if (x < out.width) {
      unsigned const parent = out.slots[i];  // the tile-local root (or, for a local root, its root)
      if (parent != background) {
        unsigned const r = out.slots[parent];  // flattened: the component's root
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
  long long const words = slots / 32;
  cuda::StreamScratch bitmap(space, std::size_t(words) * sizeof(unsigned));  // tile-local roots, then roots
  cuda::StreamScratch counts(space, std::size_t(words) * sizeof(unsigned));
  // Words of pitch padding past the last tile are never written by the local pass.
  GIGASEG_CUDA_CHECK(cudaMemsetAsync(bitmap.data(), 0, std::size_t(words) * sizeof(unsigned), stream));
  local_kernel<T><<<dim3(tiles_x, tiles_y), dim3(tile_width, tile_block_rows), 0, stream>>>(
      in, out, params.connectivity, params.equal_value, bitmap.as<unsigned>());
  GIGASEG_CUDA_CHECK(cudaGetLastError());
  seam_kernel<T><<<dim3(tiles_x, tiles_y), 96, 0, stream>>>(in, out, params.connectivity, params.equal_value);
  GIGASEG_CUDA_CHECK(cudaGetLastError());
  int device = 0, multiprocessors = 0;
  GIGASEG_CUDA_CHECK(cudaGetDevice(&device));
  GIGASEG_CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
  flatten_kernel<<<unsigned(std::min<long long>((words + 255) / 256, 32LL * multiprocessors)), 256, 0, stream>>>(
      out.slots, bitmap.as<unsigned>(), words);
  GIGASEG_CUDA_CHECK(cudaGetLastError());
  dim3 const grid(unsigned(pitch / 32), unsigned(std::min<long long>((labels.height() + 7) / 8, 65535)));
  compress_kernel<<<grid, dim3(32, 8), 0, stream>>>(out, bitmap.as<unsigned>(), counts.as<unsigned>());
  GIGASEG_CUDA_CHECK(cudaGetLastError());
  std::size_t scan_bytes = 0;
  GIGASEG_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, counts.as<unsigned>(), counts.as<unsigned>(),
                                                   int(words), stream));
  cuda::StreamScratch scan(space, scan_bytes);
  GIGASEG_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scan.data(), scan_bytes, counts.as<unsigned>(),
                                                   counts.as<unsigned>(), int(words), stream));
  number_kernel<<<grid, dim3(32, 8), 0, stream>>>(out, bitmap.as<unsigned>(), counts.as<unsigned>());
  GIGASEG_CUDA_CHECK(cudaGetLastError());
  cuda::StreamScratch total(space, sizeof(unsigned long long));
  total_kernel<<<1, 1, 0, stream>>>(bitmap.as<unsigned>(), counts.as<unsigned>(), words, total.as<unsigned long long>());
  GIGASEG_CUDA_CHECK(cudaGetLastError());
  unsigned long long host_total = 0;
  GIGASEG_CUDA_CHECK(cudaMemcpyAsync(&host_total, total.data(), sizeof host_total, cudaMemcpyDeviceToHost, stream));
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
