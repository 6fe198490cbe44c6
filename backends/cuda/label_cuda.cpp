// Tuned connected-component labelling for CUDA.
//
// Union-find over pixels, in place in the output label image: while labelling, label slot i holds
// the parent of pixel i, where i = y * P + x is the pitched index (P = the label image's pitch in
// elements). Pitched indices keep row-major order, so "the root is the smallest index" still
// means "the root is the component's first pixel", and a parent is read with no division. Four
// kernels and a scan:
//  1. local: each 32 x 32 tile is labelled in fast memory as if the tile were the whole image,
//     then every pixel's slot receives the pitched index of its tile-local root (the first pixel
//     of its tile-local component), and the tile-local roots are marked in a bitmap. This is the
//     block-based structure of the fastest GPU labelling algorithms (Allegretti et al., "Optimized
//     block-based algorithms to label connected components on GPUs", IEEE TPDS 2019: a local pass
//     in fast memory, global atomics for the rest). Plain masks take flood_kernel (a warp a tile,
//     bit-parallel flood fill over 32-bit row masks: no atomics, every lane busy); equal-value
//     labelling takes local_kernel (a block a tile, union-find over runs in shared memory).
//  2. seams: the pixels on a tile's top row and side columns make their links that leave the tile,
//     with global atomic-min union-find (Playne & Hawick 2018).
//  3. flatten: the tile-local roots (the only slots the seams change) are resolved to their roots,
//     with path halving; the roots among them form the root bitmap, with a count per 32-bit word.
//  4. scan of the words' counts (CUB, in place): roots before each word.
//  5. number, a block per tile: the local roots number their components (roots before the root +
//     1, from the bitmap word and its prefix) into shared memory, then every pixel takes its local
//     root's number. Every other slot still points at its tile-local root, so no pass over all
//     slots is needed between the seams and the numbering.
// The numbering is canonical (components in order of their first pixel) whatever the order in
// which the atomics land, so every run gives the same labels.
//
// Benign races (as in the portable path): finds read parents while other threads lower them; a
// stale value is still an ancestor with a smaller index, and the atomic min returns the current
// value, so a merge retries until its link is confirmed. Loads in the merge loop bypass L1
// (__ldcg), which is not coherent across SMs.
#include "gigaseg/backends/cuda/label_cuda.hpp"

#include "gigaseg/algorithms/detail/label_portable.hpp"
#include "gigaseg/core/cuda/cuda_check.hpp"
#include "gigaseg/core/cuda/stream_scratch.hpp"

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
  __device__ T at(long long y, long long x) const { return reinterpret_cast<T const*>(first_row + y * pitch_bytes)[x]; }
};

struct Output {
  unsigned* slots;  // the label image, pitched
  long long pitch;  // in elements; a multiple of 32
  long long width, height;
};

// ---- 1. Local tiles -----------------------------------------------------------------------------

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

// Joins the trees of a and b: the larger root goes under the smaller with an atomic minimum,
// retried from the value it met if another thread linked that root first.
__device__ void merge_local(unsigned* parents, unsigned a, unsigned b) {
  while (true) {
    a = find_local_halving(parents, a);
    b = find_local_halving(parents, b);
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

// Bits 0..c of a 32-bit word.
__device__ unsigned bits_through(int c) { return 0xffffffffu >> (31 - c); }
// The highest set bit of `bits` at or below column c (bits has one there: c's run start).
__device__ int start_at_or_below(unsigned bits, int c) { return 31 - __clz(bits & bits_through(c)); }

// The local pass for equal-value labelling (class maps): the tile as if it were the whole image,
// by runs. A warp is one tile row
// (lane = column): one ballot gives the row's run starts (a foreground pixel not connected to its
// west neighbour), and every pixel's parent is its run's start, so the trees start one level deep.
// Then only runs are merged with the runs above them: pixel c merges its run R with the run Q of
// an above neighbour a it connects to (a in c-1..c+1 for 8-connectivity, a = c for 4) when a is
// Q's start or c is R's start. That is every pair of touching runs at least once: take the
// contact with the least a, then the least c; if a is not Q's start, a-1 is in Q and touches no
// pixel of R, so c = a + 1 (c = a for 4-connectivity) with c - 1 outside R: c is R's start. (With
// equal values, runs are runs of one value and touching runs have the same value, so the same
// argument holds.) The union-find runs over run starts only, in shared memory, and each run start
// resolves its root once. The local pass alone on the H200 at 20000^2 (Nsight Compute, base
// clocks), run on the plain masks before flood_kernel existed: 19.5 ms on the random mask, 5.8 ms
// on the blobs; the pixel-based first version (first links by assignment, trees as deep as the
// tile) took 22.5 and 4.4 ms. A warp-per-tile version that merged row after row, so that the rows
// above were always flat, was slower still (22.2 and 11.1 ms at free clocks). Nsight Compute put
// the cost in divergent merge loops (5.4 active threads a warp), which flood_kernel avoids.
//
// The tile's components are then exactly those of the tile alone; the seam pass adds every link
// of the whole image's reduced rules that leaves the tile, so every link is made (a link inside
// the tile joins two pixels of one tile component) and the union-find ends with the components of
// the image.
template <class T>
__global__ void __launch_bounds__(tile_width* tile_block_rows)
    local_kernel(Input<T> in, Output out, int connectivity, bool equal_value, unsigned* local_roots) {
  constexpr int rows_per_thread = tile_height / tile_block_rows;
  __shared__ T pixels[tile_height][tile_width];
  __shared__ unsigned parents[tile_height * tile_width];
  __shared__ unsigned run_starts[tile_height];
  long long const x0 = (long long)blockIdx.x * tile_width, y0 = (long long)blockIdx.y * tile_height;
  int const c = threadIdx.x;
#pragma unroll
  for (int k = 0; k < rows_per_thread; ++k) {
    int const r = threadIdx.y + k * tile_block_rows;
    long long const y = y0 + r, x = x0 + c;
    pixels[r][c] = (y < in.height && x < in.width) ? in.at(y, x) : T(0);
  }
  __syncthreads();
  detail::Connects<T> const connects{equal_value};
  // Run starts; every pixel's parent is its run's start.
  int start[rows_per_thread];
#pragma unroll
  for (int k = 0; k < rows_per_thread; ++k) {
    int const r = threadIdx.y + k * tile_block_rows;
    T const p = pixels[r][c];
    bool const continues = p != 0 && c > 0 && connects(p, pixels[r][c - 1]);
    unsigned const starts = __ballot_sync(full_mask, p != 0 && !continues);
    if (c == 0) run_starts[r] = starts;
    start[k] = p != 0 ? start_at_or_below(starts, c) : -1;
    parents[r * tile_width + c] = p != 0 ? unsigned(r * tile_width + start[k]) : background;
  }
  __syncthreads();
  // Runs merge with the runs above them.
#pragma unroll
  for (int k = 0; k < rows_per_thread; ++k) {
    int const r = threadIdx.y + k * tile_block_rows;
    if (r == 0 || start[k] < 0) continue;
    T const p = pixels[r][c];
    unsigned const above = run_starts[r - 1];
    bool const own_start = start[k] == c;
    int const first = connectivity == 8 && c > 0 ? c - 1 : c;
    int const last = connectivity == 8 && c + 1 < tile_width ? c + 1 : c;
    for (int a = first; a <= last; ++a) {
      if (!connects(p, pixels[r - 1][a])) continue;
      if (!own_start && !((above >> a) & 1u)) continue;
      merge_local(parents, unsigned(r * tile_width + start[k]),
                  unsigned((r - 1) * tile_width + start_at_or_below(above, a)));
    }
  }
  __syncthreads();
  // Each run start finds its root; then every pixel takes its run start's.
  unsigned root[rows_per_thread];
#pragma unroll
  for (int k = 0; k < rows_per_thread; ++k) {
    int const r = threadIdx.y + k * tile_block_rows;
    root[k] = start[k] == c ? find_local_halving(parents, unsigned(r * tile_width + c)) : background;
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < rows_per_thread; ++k) {
    int const r = threadIdx.y + k * tile_block_rows;
    if (start[k] == c) parents[r * tile_width + c] = root[k];
  }
  __syncthreads();
  // Each slot gets the pitched index of its tile-local root; the tile-local roots are marked in a
  // bitmap (a warp is one tile row of 32 slots: one bitmap word), the only slots the seams change.
#pragma unroll
  for (int k = 0; k < rows_per_thread; ++k) {
    int const r = threadIdx.y + k * tile_block_rows;
    long long const y = y0 + r, x = x0 + c;
    if (y >= out.height) continue;  // the same for the whole warp
    unsigned const local = r * tile_width + c;
    bool local_root = false;
    if (x < out.width) {
      unsigned slot = background;
      if (start[k] >= 0) {
        unsigned const tile_root = parents[r * tile_width + start[k]];
        slot = unsigned((y0 + tile_root / tile_width) * out.pitch + x0 + tile_root % tile_width);
        local_root = tile_root == local;
      }
      out.slots[y * out.pitch + x] = slot;
    }
    unsigned const word = __ballot_sync(full_mask, local_root);
    if (c == 0) local_roots[(y * out.pitch + x0) >> 5] = word;
  }
}

// The local pass for plain foreground masks (not equal values): one warp a tile, bit-parallel.
// Lane r holds row r of the tile as a 32-bit mask. A component grows from its first pixel in
// raster order (the first pending bit of the first row with one: that pixel is its tile-local
// root): at each step every row takes the bits of its neighbours' rows (shifted by one column
// either way for 8-connectivity) and fills every run of its mask that they touch, with one
// addition per direction (fill_runs); the component is complete when no row changed. Then the next
// pending pixel starts the next component. A step is some 25 instructions for the whole warp with
// all lanes busy; the union-find local pass above (local_kernel) spent most of its time in
// divergent merge loops (Nsight Compute on the random mask: 5.4 active threads a warp, 14.7 ms).
// With this pass the whole labelling of the 20000^2 random mask takes 5.0 ms on the H200 (17.9 ms
// before). A component that winds through the tile (a spiral) needs a step per turn: correct,
// only slower.
//
// Runs of m touched by s: with a = s & m, m + a carries from the lowest touched bit of each run
// through its end, so m & ~(m + a) | a is each touched run from its lowest touched bit upwards
// (the carry stops at the 0 past the run); the same on the bit-reversed masks gives the part
// below the highest touched bit.
__device__ unsigned fill_runs(unsigned m, unsigned a) {
  unsigned const up = (m & ~(m + a)) | a;
  unsigned const mr = __brev(m), ar = __brev(a);
  return up | __brev((mr & ~(mr + ar)) | ar);
}

constexpr int flood_tiles_per_block = 4;     // a warp each
constexpr int flood_pitch = tile_width + 1;  // shared row pitch (no bank conflicts by column)

template <class T>
__global__ void __launch_bounds__(32 * flood_tiles_per_block)
    flood_kernel(Input<T> in, Output out, bool eight, unsigned* local_roots, unsigned tiles_x) {
  __shared__ unsigned all_roots[flood_tiles_per_block][tile_height * flood_pitch];
  int const warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  unsigned const tile_x = blockIdx.x * flood_tiles_per_block + warp;
  if (tile_x >= tiles_x) return;            // the whole warp; the kernel synchronises warps only
  unsigned* const roots = all_roots[warp];  // tile-local root (row * 32 + column) of each pixel
  long long const x0 = (long long)tile_x * tile_width, y0 = (long long)blockIdx.y * tile_height;
  long long const x = x0 + lane;
  bool const column_inside = x < in.width;

  // Row masks: loaded with lane = column, 8 rows in flight; lane r keeps row r's ballot.
  unsigned foreground = 0;
  constexpr int batch = 8;
  for (int r0 = 0; r0 < tile_height; r0 += batch) {
    T pixels[batch];
#pragma unroll
    for (int j = 0; j < batch; ++j) {
      long long const y = y0 + r0 + j;
      pixels[j] = column_inside && y < in.height ? in.at(y, x) : T(0);
    }
#pragma unroll
    for (int j = 0; j < batch; ++j) {
      unsigned const row = __ballot_sync(full_mask, pixels[j] != 0);
      if (lane == r0 + j) foreground = row;
    }
  }

  unsigned done = 0;
  while (true) {
    unsigned const pending = foreground & ~done;
    unsigned const rows_pending = __ballot_sync(full_mask, pending != 0);
    if (rows_pending == 0) break;
    int const first_row = __ffs(rows_pending) - 1;
    int const first_column = __ffs(__shfl_sync(full_mask, pending, first_row)) - 1;
    unsigned component = lane == first_row ? 1u << first_column : 0u;
    while (true) {
      unsigned const up = __shfl_up_sync(full_mask, component, 1), down = __shfl_down_sync(full_mask, component, 1);
      unsigned const above = lane > 0 ? up : 0u, below = lane + 1 < tile_height ? down : 0u;
      unsigned touch = component | above | below;
      if (eight) touch |= (above << 1) | (above >> 1) | (below << 1) | (below >> 1);
      unsigned const grown = fill_runs(foreground, touch & foreground);
      bool const changed = __any_sync(full_mask, grown != component);
      component = grown;
      if (!changed) break;
    }
    done |= component;
    unsigned const root = unsigned(first_row * tile_width + first_column);
    for (unsigned bits = component; bits != 0; bits &= bits - 1) roots[lane * flood_pitch + __ffs(bits) - 1] = root;
  }
  __syncwarp();

  // Slots (lane = column again) and the bitmap of tile-local roots, a row a word.
  for (int r = 0; r < tile_height; ++r) {
    long long const y = y0 + r;
    if (y >= out.height) break;  // the same for the whole warp
    bool const occupied = (__shfl_sync(full_mask, foreground, r) >> lane) & 1u;
    bool local_root = false;
    if (column_inside) {
      unsigned slot = background;
      if (occupied) {
        unsigned const tile_root = roots[r * flood_pitch + lane];
        slot = unsigned((y0 + tile_root / tile_width) * out.pitch + x0 + tile_root % tile_width);
        local_root = tile_root == unsigned(r * tile_width + lane);
      }
      out.slots[y * out.pitch + x] = slot;
    }
    unsigned const word = __ballot_sync(full_mask, local_root);
    if (lane == 0) local_roots[(y * out.pitch + x0) >> 5] = word;
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
  int const r = t < tile_width                     ? 0
                : t < tile_width + tile_height - 1 ? t - tile_width + 1
                                                   : t - tile_width - tile_height + 2;
  int const c = t < tile_width ? t : t < tile_width + tile_height - 1 ? 0 : tile_width - 1;
  long long const y = (long long)blockIdx.y * tile_height + r, x = (long long)blockIdx.x * tile_width + c;
  if (y >= in.height || x >= in.width) return;
  T const p = in.at(y, x);
  if (p == 0) return;
  detail::Connects<T> const connects{equal_value};
  bool const up = y > 0, left = x > 0, right = x + 1 < in.width;
  detail::Neighbour links[2];
  int const count =
      detail::reduced_links(up && left && connects(p, in.at(y - 1, x - 1)), up && connects(p, in.at(y - 1, x)),
                            up && right && connects(p, in.at(y - 1, x + 1)), left && connects(p, in.at(y, x - 1)),
                            connectivity, links[0], links[1]);
  unsigned const self = unsigned(y * out.pitch + x);
  for (int k = 0; k < count; ++k) {
    int const rr = r + detail::neighbour_dy(links[k]), cc = c + detail::neighbour_dx(links[k]);
    if (rr >= 0 && cc >= 0 && cc < tile_width) continue;  // made by the local pass
    long long const ny = y + detail::neighbour_dy(links[k]), nx = x + detail::neighbour_dx(links[k]);
    merge_global(out.slots, self, unsigned(ny * out.pitch + nx));
  }
}

// ---- 3. Flatten the tile-local roots, root bitmap --------------------------------------------

// After the seams, only tile-local roots can have parents outside their tile (every other slot
// points at its tile-local root and is never changed), and chains of them can be long (a
// component across many tiles). Each local root is resolved once here, with path halving so that
// concurrent walks along one chain shorten it for each other. The halving writes are atomic
// minima, not stores: a plain store of a grandparent could land after another thread had already
// set that slot to the root, and undo it (a race the first version had, caught by the 20-run
// test). Ancestors have smaller indices and the root is the smallest, so with minima every slot
// ends at its root and no write ever lengthens a chain.
// A local root is a component's root if its slot is its own index, already before the walks (the
// seams are done; flattening never changes a root), so the same thread writes the word of the
// root bitmap and its population count.
__global__ void __launch_bounds__(256) flatten_kernel(unsigned* slots, unsigned const* local_roots,
                                                      unsigned* root_bitmap, unsigned* word_counts, long long words) {
  for (long long w = (long long)blockIdx.x * blockDim.x + threadIdx.x; w < words;
       w += (long long)gridDim.x * blockDim.x) {
    unsigned bits = local_roots[w], roots = 0;
    while (bits != 0) {
      int const bit = __ffs(bits) - 1;
      unsigned const i = unsigned(w * 32 + bit);
      bits &= bits - 1;
      unsigned node = i, parent = __ldcg(slots + node);
      if (parent == node) {
        roots |= 1u << bit;
        continue;
      }
      while (parent != node) {
        unsigned const grandparent = __ldcg(slots + parent);
        if (grandparent != parent) atomicMin(slots + node, grandparent);
        node = parent;
        parent = grandparent;
      }
      atomicMin(slots + i, node);
    }
    root_bitmap[w] = roots;
    word_counts[w] = unsigned(__popc(roots));
  }
}

// ---- 5. Numbers ---------------------------------------------------------------------------------

// One block a tile, as the local pass. A slot holds its tile-local root (or, for a local root, the
// component's root after flattening). First every thread reads its slots, and the local roots
// number their components from the root bitmap and the scanned counts into shared memory; then
// every pixel takes its local root's number. Reads and writes stay in the block's own tile, so the
// slots can be overwritten in place.
__global__ void __launch_bounds__(tile_width* tile_block_rows)
    number_kernel(Output out, unsigned const* local_roots, unsigned const* root_bitmap,
                  unsigned const* roots_before_word, float rows_per_pitch_unit) {
  constexpr int rows_per_thread = tile_height / tile_block_rows;
  __shared__ unsigned numbers[tile_height * tile_width];
  long long const x0 = (long long)blockIdx.x * tile_width, y0 = (long long)blockIdx.y * tile_height;
  int const c = threadIdx.x;
  bool const column_inside = x0 + c < out.width;
  unsigned slot[rows_per_thread];
  bool local_root[rows_per_thread];
#pragma unroll
  for (int k = 0; k < rows_per_thread; ++k) {
    int const r = threadIdx.y + k * tile_block_rows;
    long long const y = y0 + r;
    slot[k] = background;
    local_root[k] = false;
    if (y >= out.height || !column_inside) continue;
    long long const i = y * out.pitch + x0 + c;
    slot[k] = out.slots[i];
    local_root[k] = (local_roots[i >> 5] >> c) & 1u;
    if (local_root[k]) {
      unsigned const root = slot[k], word = root >> 5, below = (1u << (root & 31)) - 1u;
      numbers[r * tile_width + c] = roots_before_word[word] + unsigned(__popc(root_bitmap[word] & below)) + 1u;
    }
  }
  __syncthreads();
  unsigned const origin = unsigned(y0 * out.pitch + x0);
#pragma unroll
  for (int k = 0; k < rows_per_thread; ++k) {
    int const r = threadIdx.y + k * tile_block_rows;
    long long const y = y0 + r;
    if (y >= out.height || !column_inside) continue;
    unsigned number = 0;
    if (local_root[k]) {
      number = numbers[r * tile_width + c];
    } else if (slot[k] != background) {
      // The local root's row and column in the tile: slot - origin = row * pitch + column, the
      // pitch a multiple of 32. The quotient is exact in single precision (row < 32).
      unsigned const offset = slot[k] - origin, column = offset & 31u;
      int const row = __float2int_rn(float((offset - column) >> 5) * rows_per_pitch_unit);
      number = numbers[row * tile_width + int(column)];
    }
    out.slots[y * out.pitch + x0 + c] = number;
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
  cuda::StreamScratch local_roots(space, std::size_t(words) * sizeof(unsigned));
  cuda::StreamScratch bitmap(space, std::size_t(words) * sizeof(unsigned));  // the components' roots
  cuda::StreamScratch counts(space, std::size_t(words) * sizeof(unsigned));
  // Words of pitch padding past the last tile are never written by the local pass.
  if (pitch > (long long)tiles_x * tile_width)
    GIGASEG_CUDA_CHECK(cudaMemsetAsync(local_roots.data(), 0, std::size_t(words) * sizeof(unsigned), stream));
  dim3 const tiles(tiles_x, tiles_y), tile_threads(tile_width, tile_block_rows);
  if (params.equal_value) {
    local_kernel<T><<<tiles, tile_threads, 0, stream>>>(in, out, params.connectivity, params.equal_value,
                                                        local_roots.as<unsigned>());
  } else {
    dim3 const flood_blocks((tiles_x + flood_tiles_per_block - 1) / flood_tiles_per_block, tiles_y);
    flood_kernel<T><<<flood_blocks, 32 * flood_tiles_per_block, 0, stream>>>(in, out, params.connectivity == 8,
                                                                             local_roots.as<unsigned>(), tiles_x);
  }
  GIGASEG_CUDA_CHECK(cudaGetLastError());
  seam_kernel<T><<<tiles, 96, 0, stream>>>(in, out, params.connectivity, params.equal_value);
  GIGASEG_CUDA_CHECK(cudaGetLastError());
  int device = 0, multiprocessors = 0;
  GIGASEG_CUDA_CHECK(cudaGetDevice(&device));
  GIGASEG_CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
  flatten_kernel<<<unsigned(std::min<long long>((words + 255) / 256, 32LL * multiprocessors)), 256, 0, stream>>>(
      out.slots, local_roots.as<unsigned>(), bitmap.as<unsigned>(), counts.as<unsigned>(), words);
  GIGASEG_CUDA_CHECK(cudaGetLastError());
  std::size_t scan_bytes = 0;
  GIGASEG_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, counts.as<unsigned>(), counts.as<unsigned>(),
                                                   int(words), stream));
  cuda::StreamScratch scan(space, scan_bytes);
  GIGASEG_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scan.data(), scan_bytes, counts.as<unsigned>(),
                                                   counts.as<unsigned>(), int(words), stream));
  number_kernel<<<tiles, tile_threads, 0, stream>>>(out, local_roots.as<unsigned>(), bitmap.as<unsigned>(),
                                                    counts.as<unsigned>(), 1.0f / float(pitch / 32));
  GIGASEG_CUDA_CHECK(cudaGetLastError());
  cuda::StreamScratch total(space, sizeof(unsigned long long));
  total_kernel<<<1, 1, 0, stream>>>(bitmap.as<unsigned>(), counts.as<unsigned>(), words,
                                    total.as<unsigned long long>());
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
