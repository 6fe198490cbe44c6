#include "gigaseg/core/cuda/transfer_cuda.hpp"

#include "gigaseg/core/cuda/cuda_check.hpp"

#include <algorithm>
#include <cstring>
#include <exception>
#include <mutex>

namespace gigaseg::cuda {

void copy_2d(Kokkos::Cuda const& space, void* dst, index_t dst_pitch, void const* src, index_t src_pitch,
             index_t row_bytes, index_t rows) {
  // cudaMemcpyDefault: the unified address space tells the driver which side each pointer is on.
  GIGASEG_CUDA_CHECK(cudaMemcpy2DAsync(dst, static_cast<std::size_t>(dst_pitch), src,
                                       static_cast<std::size_t>(src_pitch), static_cast<std::size_t>(row_bytes),
                                       static_cast<std::size_t>(rows), cudaMemcpyDefault, space.cuda_stream()));
}

namespace {

constexpr std::size_t staging_bytes = std::size_t(16) << 20;  // each of the two pinned blocks

// The two pinned blocks of staged copies, made on first use (for the GPU current then) and kept
// until release_staging(); one copy uses them at a time (another copy meanwhile, or a copy for
// another GPU, goes the plain way).
struct Staging {
  std::mutex busy;
  std::mutex made;  // guards the blocks' creation and release
  int device = -1;  // the GPU the events belong to
  void* block[2] = {nullptr, nullptr};
  cudaEvent_t done[2] = {nullptr, nullptr};  // the last DMA of each block
};
Staging& staging() {
  static Staging s;
  return s;
}

bool pageable(void const* pointer) {
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, pointer) != cudaSuccess) {
    (void)cudaGetLastError();  // older drivers report an unknown host pointer as an error
    return true;
  }
  return attributes.type == cudaMemoryTypeUnregistered;
}

// Rows [0, rows) of `row_bytes` between two pitched buffers, on every host thread of the OpenMP
// runtime (the calling thread's team).
void copy_rows(unsigned char* dst, index_t dst_pitch, unsigned char const* src, index_t src_pitch, index_t row_bytes,
               index_t rows) {
#pragma omp parallel for schedule(static)
  for (index_t y = 0; y < rows; ++y)
    std::memcpy(dst + y * dst_pitch, src + y * src_pitch, static_cast<std::size_t>(row_bytes));
}

}  // namespace

bool staged_copy_2d(Kokkos::Cuda const& space, void* dst, index_t dst_pitch, void const* src, index_t src_pitch,
                    index_t row_bytes, index_t rows, bool to_host) {
  if (row_bytes * rows < staged_copy_min_bytes || row_bytes > index_t(staging_bytes)) return false;
  if (!pageable(to_host ? dst : src)) return false;  // pinned memory: the DMA reaches it directly
  // The events are recorded on the space's stream: the calling thread's GPU must be the space's.
  int current = -1;
  if (cudaGetDevice(&current) != cudaSuccess || current != space.cuda_device()) return false;
  Staging& s = staging();
  std::unique_lock<std::mutex> use(s.busy, std::try_to_lock);
  if (!use.owns_lock()) return false;
  {
    std::lock_guard<std::mutex> lock(s.made);
    if (s.device >= 0 && s.device != current) return false;
    s.device = current;
    for (int b = 0; b < 2; ++b) {
      if (s.block[b] == nullptr) GIGASEG_CUDA_CHECK(cudaMallocHost(&s.block[b], staging_bytes));
      if (s.done[b] == nullptr) GIGASEG_CUDA_CHECK(cudaEventCreateWithFlags(&s.done[b], cudaEventDisableTiming));
    }
  }
  // A copy that failed midway may have left a transfer running on a block: none is used before its
  // last transfer is done, and on the way out nothing is left running on either.
  for (int b = 0; b < 2; ++b) GIGASEG_CUDA_CHECK(cudaEventSynchronize(s.done[b]));
  struct Settle {
    Staging& s;
    cudaStream_t stream;
    ~Settle() {
      if (!std::uncaught_exceptions()) return;
      (void)cudaStreamSynchronize(stream);
      for (int b = 0; b < 2; ++b) (void)cudaEventSynchronize(s.done[b]);
      (void)cudaGetLastError();
    }
  };
  cudaStream_t const stream = space.cuda_stream();
  Settle const settle{s, stream};
  index_t const band = index_t(staging_bytes) / row_bytes;  // rows a block holds, packed
  index_t const bands = (rows + band - 1) / band;
  auto rows_of = [&](index_t k) { return std::min(band, rows - k * band); };
  auto* const to = static_cast<unsigned char*>(dst);
  auto const* const from = static_cast<unsigned char const*>(src);
  if (to_host) {
    // The DMA of band k + 1 runs while the host threads copy band k out of the other block.
    auto fetch = [&](index_t k) {
      int const b = int(k % 2);
      GIGASEG_CUDA_CHECK(cudaMemcpy2DAsync(s.block[b], std::size_t(row_bytes), from + k * band * src_pitch,
                                           std::size_t(src_pitch), std::size_t(row_bytes), std::size_t(rows_of(k)),
                                           cudaMemcpyDeviceToHost, stream));
      GIGASEG_CUDA_CHECK(cudaEventRecord(s.done[b], stream));
    };
    fetch(0);
    for (index_t k = 0; k < bands; ++k) {
      int const b = int(k % 2);
      GIGASEG_CUDA_CHECK(cudaEventSynchronize(s.done[b]));
      if (k + 1 < bands) fetch(k + 1);
      copy_rows(to + k * band * dst_pitch, dst_pitch, static_cast<unsigned char const*>(s.block[b]), row_bytes,
                row_bytes, rows_of(k));
    }
  } else {
    // The host threads fill one block while the other's DMA runs.
    for (index_t k = 0; k < bands; ++k) {
      int const b = int(k % 2);
      if (k >= 2) GIGASEG_CUDA_CHECK(cudaEventSynchronize(s.done[b]));
      copy_rows(static_cast<unsigned char*>(s.block[b]), row_bytes, from + k * band * src_pitch, src_pitch, row_bytes,
                rows_of(k));
      GIGASEG_CUDA_CHECK(cudaMemcpy2DAsync(to + k * band * dst_pitch, std::size_t(dst_pitch), s.block[b],
                                           std::size_t(row_bytes), std::size_t(row_bytes), std::size_t(rows_of(k)),
                                           cudaMemcpyHostToDevice, stream));
      GIGASEG_CUDA_CHECK(cudaEventRecord(s.done[b], stream));
    }
    // The blocks are free for the next copy once their transfers are done.
    for (int b = 0; b < 2; ++b) GIGASEG_CUDA_CHECK(cudaEventSynchronize(s.done[b]));
  }
  return true;
}

void release_staging() noexcept {
  Staging& s = staging();
  std::lock_guard<std::mutex> use(s.busy);
  std::lock_guard<std::mutex> lock(s.made);
  for (int b = 0; b < 2; ++b) {
    if (s.block[b] != nullptr) (void)cudaFreeHost(s.block[b]);
    if (s.done[b] != nullptr) (void)cudaEventDestroy(s.done[b]);
    s.block[b] = nullptr;
    s.done[b] = nullptr;
  }
  s.device = -1;
}

}  // namespace gigaseg::cuda
