// Tuned CUDA kernels for 8-bit neighbourhood filters: medians, Sobel magnitude and rectangle
// morphology. The kernels are in filters_kernels.cuh; this file checks preconditions and launches.
#include "gigaseg/backends/cuda/filters_cuda.hpp"

#include "gigaseg/core/cuda/cuda_check.hpp"
#include "gigaseg/backends/cuda/filters_kernels.cuh"
#include "gigaseg/core/cuda/stream_scratch.hpp"
#include "gigaseg/core/error.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

namespace gigaseg::tuned {
namespace {

using namespace kernels;

constexpr int max_separable_size = 191;  // (K - 1) x 64 words of column slots fit 48 KiB; halo < 64

bool aligned_to(void const* p, long long pitch, int bytes) {
  return reinterpret_cast<std::uintptr_t>(p) % std::uintptr_t(bytes) == 0 && pitch % bytes == 0;
}

template <bool Minimum>
void launch_separable(Kokkos::Cuda const& space, ImageView<std::uint8_t const, Kokkos::CudaSpace> const& in,
                      ImageView<std::uint8_t, Kokkos::CudaSpace> const& out, int K) {
  long long const width = in.width(), height = in.height();
  long long const words = (width + 3) / 4;
  // The column pass's output, from the stream-ordered pool: a cudaMalloc and cudaFree of a
  // 20000 x 20000 image (the free waiting for the device) cost more than the row pass.
  long long const columns_pitch = aligned_pitch(width, 1);
  cuda::StreamScratch columns_memory(space, std::size_t(columns_pitch * height));
  auto const columns =
      ImageView<std::uint8_t, Kokkos::CudaSpace>::wrap(columns_memory.as<std::uint8_t>(), width, height, columns_pitch);
  // Chains of strips per thread: long enough to read each row once, short enough for ~256 K threads.
  // Two words (8 pixels) per thread where the rows allow 8-byte loads.
  // Pairs need (K - 1) x 64 x 8 bytes of shared memory: up to K = 97 within the 48 KiB default.
  bool const pairs =
      K <= 97 && aligned_to(in.data(), in.pitch_bytes(), 8) && aligned_to(columns.data(), columns.pitch_bytes(), 8);
  int const per_thread = pairs ? 2 : 1;
  long long const strips = (height + K - 1) / K;
  long long const column_blocks = (words + column_threads * per_thread - 1) / (column_threads * per_thread);
  long long chain = std::max<long long>(1, strips * column_blocks * column_threads / (256 * 1024));
  long long chains = (strips + chain - 1) / chain;
  while (chains > 65535) {
    ++chain;
    chains = (strips + chain - 1) / chain;
  }
  std::size_t const column_shared = std::size_t(K - 1) * column_threads * sizeof(unsigned) * std::size_t(per_thread);
  dim3 const column_grid{unsigned(column_blocks), unsigned(chains)};
  if (pairs)
    column_min_max_kernel<Minimum, 2><<<column_grid, column_threads, column_shared, space.cuda_stream()>>>(
        in.data(), in.pitch_bytes(), columns.data(), columns.pitch_bytes(), width, height, K, int(chain));
  else
    column_min_max_kernel<Minimum, 1><<<column_grid, column_threads, column_shared, space.cuda_stream()>>>(
        in.data(), in.pitch_bytes(), columns.data(), columns.pitch_bytes(), width, height, K, int(chain));
  GIGASEG_CUDA_CHECK(cudaGetLastError());
  // Row pass: 16-byte loads and stores where the rows allow them (the halo then rounds up to 4 words).
  bool const vec =
      aligned_to(columns.data(), columns.pitch_bytes(), 16) && aligned_to(out.data(), out.pitch_bytes(), 16);
  int const halo = vec ? (K / 2 + 15) / 16 * 4 : (K / 2 + 3) / 4;
  long long const segments = (words + (128 - 2 * halo) - 1) / (128 - 2 * halo);
  long long const row_groups = (height + row_warps - 1) / row_warps;
  dim3 const row_grid(unsigned(segments), unsigned(row_groups < 160 ? row_groups : 160));
  if (vec)
    row_min_max_kernel<Minimum, true><<<row_grid, row_warps * 32, 0, space.cuda_stream()>>>(
        columns.data(), columns.pitch_bytes(), out.data(), out.pitch_bytes(), width, height, K, halo);
  else
    row_min_max_kernel<Minimum, false><<<row_grid, row_warps * 32, 0, space.cuda_stream()>>>(
        columns.data(), columns.pitch_bytes(), out.data(), out.pitch_bytes(), width, height, K, halo);
  GIGASEG_CUDA_CHECK(cudaGetLastError());
}  // `columns` goes back to the pool on the stream, after the row pass

// Fused column and row passes (fused_min_max_kernel): (K - 1 + R) x 512 bytes of shared memory a
// block, opted in past the 48 KiB default.
// On the H200 at 20000^2 (docs/performance.md, local filters): fused 0.839 ms against separable 0.883 ms
// at 31, 0.929 / 1.08 at 47, 1.11 / 1.20 at 63, but 0.883 / 0.771 at 15; tiles of 16 rows 0.839,
// of 8 0.867, of 4 1.01, whole strips 0.866 ms at 31.
constexpr int fused_from_size = 23;
constexpr int fused_max_size = 63;
constexpr int fused_default_rows = 16;

template <bool Minimum>
void launch_fused(Kokkos::Cuda const& space, ImageView<std::uint8_t const, Kokkos::CudaSpace> const& in,
                  ImageView<std::uint8_t, Kokkos::CudaSpace> const& out, int K, int chain, int rows) {
  long long const width = in.width(), height = in.height();
  long long const words = (width + 3) / 4;
  int const halo = (K / 2 + 15) / 16 * 4;  // words of context a side, a multiple of 4 (16-byte stores)
  long long const bands = (words + (fused_words - 2 * halo) - 1) / (fused_words - 2 * halo);
  long long const strips = (height + K - 1) / K;
  // Chains of strips a block: each chain reads K - 1 rows above its first strip again, so long
  // chains, but enough blocks (~4096) to fill the GPU several times over.
  if (chain <= 0) chain = int(std::max<long long>(1, std::min<long long>(strips, strips * bands / 4096)));
  long long chains = (strips + chain - 1) / chain;
  while (chains > 65535) {
    ++chain;
    chains = (strips + chain - 1) / chain;
  }
  int const R = rows <= 0 ? std::min(K, fused_default_rows) : std::min(K, rows);
  std::size_t const shared = std::size_t(K - 1 + R) * fused_words * sizeof(unsigned);
  if (shared > 48 * 1024)
    GIGASEG_CUDA_CHECK(
        cudaFuncSetAttribute(fused_min_max_kernel<Minimum>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared)));
  bool const vector_store = aligned_to(out.data(), out.pitch_bytes(), 16);
  fused_min_max_kernel<Minimum><<<dim3(unsigned(bands), unsigned(chains)), fused_words, shared, space.cuda_stream()>>>(
      in.data(), in.pitch_bytes(), out.data(), out.pitch_bytes(), width, height, K, R, halo, chain, vector_store);
  GIGASEG_CUDA_CHECK(cudaGetLastError());
}

bool aligned(void const* p, long long pitch) { return aligned_to(p, pitch, 4); }

template <int K, class Op>
bool launch(Kokkos::Cuda const& space, ImageView<std::uint8_t const, Kokkos::CudaSpace> const& in,
            ImageView<std::uint8_t, Kokkos::CudaSpace> const& out, int outside, Op op) {
  long long const width = in.width(), height = in.height();
  long long const quads = (width + 3) / 4;
  long long const strips = (height + strip_rows - 1) / strip_rows;
  dim3 const grid(unsigned((quads + block_x - 1) / block_x), unsigned((strips + block_y - 1) / block_y));
  if (grid.y > 65535u) return false;  // taller than 16.7 M rows: the portable path takes it
  window_kernel<K><<<grid, dim3(block_x, block_y), 0, space.cuda_stream()>>>(
      in.data(), in.pitch_bytes(), out.data(), out.pitch_bytes(), width, height, outside, op);
  GIGASEG_CUDA_CHECK(cudaGetLastError());
  return true;
}

}  // namespace

bool median(Kokkos::Cuda const& space, ImageView<std::uint8_t const, Kokkos::CudaSpace> const& in,
            ImageView<std::uint8_t, Kokkos::CudaSpace> const& out, int size) {
  if (!aligned(in.data(), in.pitch_bytes()) || !aligned(out.data(), out.pitch_bytes())) return false;
  if (size == 3) return launch<3>(space, in, out, -1, MedianOp{});
  if (size == 5) return launch<5>(space, in, out, -1, MedianOp{});
  return false;
}

bool rect_min_max_u8(Kokkos::Cuda const& space, ImageView<std::uint8_t const, Kokkos::CudaSpace> const& in,
                     ImageView<std::uint8_t, Kokkos::CudaSpace> const& out, int size, bool minimum) {
  return rect_min_max_u8(space, in, out, size, minimum, RectPasses::automatic);
}

bool rect_min_max_u8(Kokkos::Cuda const& space, ImageView<std::uint8_t const, Kokkos::CudaSpace> const& in,
                     ImageView<std::uint8_t, Kokkos::CudaSpace> const& out, int size, bool minimum, RectPasses passes,
                     int chain, int rows) {
  if (!aligned(in.data(), in.pitch_bytes()) || !aligned(out.data(), out.pitch_bytes())) return false;
  int const neutral = minimum ? 255 : 0;
  if (passes == RectPasses::automatic) {
    switch (size) {
      case 3: return launch<3>(space, in, out, neutral, RectMinMaxOp{minimum});
      case 5: return launch<5>(space, in, out, neutral, RectMinMaxOp{minimum});
      case 7: return launch<7>(space, in, out, neutral, RectMinMaxOp{minimum});
      default: break;
    }
    if (size < 9) return false;
    passes = size >= fused_from_size && size <= fused_max_size ? RectPasses::fused : RectPasses::separable;
  }
  if (size < 3 || size % 2 == 0) return false;
  if (passes == RectPasses::fused) {
    if (size > fused_max_size) return false;
    if (minimum)
      launch_fused<true>(space, in, out, size, chain, rows);
    else
      launch_fused<false>(space, in, out, size, chain, rows);
    return true;
  }
  if (size > max_separable_size) return false;
  if (minimum)
    launch_separable<true>(space, in, out, size);
  else
    launch_separable<false>(space, in, out, size);
  return true;
}

bool sobel_magnitude(Kokkos::Cuda const& space, ImageView<std::uint8_t const, Kokkos::CudaSpace> const& in,
                     ImageView<float, Kokkos::CudaSpace> const& out) {
  if (!aligned(in.data(), in.pitch_bytes())) return false;
  long long const width = in.width(), height = in.height();
  bool const vector_store = reinterpret_cast<std::uintptr_t>(out.data()) % 16 == 0 && out.pitch_bytes() % 16 == 0;
  long long const quads = (width + 3) / 4;
  long long const strips = (height + strip_rows - 1) / strip_rows;
  dim3 const grid(unsigned((quads + block_x - 1) / block_x), unsigned((strips + block_y - 1) / block_y));
  if (grid.y > 65535u) return false;
  sobel_kernel<<<grid, dim3(block_x, block_y), 0, space.cuda_stream()>>>(
      in.data(), in.pitch_bytes(), out.data(), out.pitch_bytes(), width, height, vector_store);
  GIGASEG_CUDA_CHECK(cudaGetLastError());
  return true;
}

}  // namespace gigaseg::tuned
