// NPP peer for bench_filters: nppiFilterMedian_8u_C1R 3x3 and 5x5 and nppiErode3x3 on a
// 20000 x 20000 8-bit image, median of events-timed runs after a warm-up. NPP's median reads
// outside the ROI (no border handling), so the ROI is the image less a border of radius pixels,
// which NPP gets for free: gigaseg's figure covers the whole image with replicate borders.
// NPP 13 (CUDA 13) has only the stream-context (_Ctx) entry points.
//   nvcc -O2 -arch=sm_90 npp_filters.cu -o npp_filters -lnppif -lnppim -lnppc
#include "npp_timing.cuh"

#include <cuda_runtime.h>
#include <nppi_filtering_functions.h>
#include <nppi_morphological_operations.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  int const side = argc > 1 ? std::atoi(argv[1]) : 20000;
  Npp8u *src, *dst, *buffer;
  size_t pitch;
  cudaMallocPitch(&src, &pitch, side, side);
  cudaMallocPitch(&dst, &pitch, side, side);
  std::vector<unsigned char> host(size_t(side) * side);
  unsigned s = 1;
  for (auto& v : host) v = (unsigned char)((s = s * 1664525u + 1013904223u) >> 24);
  cudaMemcpy2D(src, pitch, host.data(), side, side, side, cudaMemcpyHostToDevice);
  NppStreamContext const ctx = default_stream_context();
  for (int k : {3, 5}) {
    int const r = k / 2;
    NppiSize roi{side - 2 * r, side - 2 * r}, mask{k, k};
    NppiPoint anchor{r, r};
    Npp32u bytes = 0;
    nppiFilterMedianGetBufferSize_8u_C1R_Ctx(roi, mask, &bytes, ctx);
    cudaMalloc(&buffer, bytes);
    Npp8u const* in = src + r * pitch + r;
    Npp8u* out = dst + r * pitch + r;
    NppStatus status = NPP_SUCCESS;
    float const ms = bench(
        [&] { status = nppiFilterMedian_8u_C1R_Ctx(in, int(pitch), out, int(pitch), roi, mask, anchor, buffer, ctx); });
    std::printf("npp nppiFilterMedian_8u_C1R_Ctx %dx%d (interior roi): %.4f ms status %d\n", k, k, ms, int(status));
    cudaFree(buffer);
  }
  {
    NppiSize roi{side - 2, side - 2};
    NppStatus status = NPP_SUCCESS;
    float const ms = bench(
        [&] { status = nppiErode3x3_8u_C1R_Ctx(src + pitch + 1, int(pitch), dst + pitch + 1, int(pitch), roi, ctx); });
    std::printf("npp nppiErode3x3_8u_C1R_Ctx (interior roi): %.4f ms status %d\n", ms, int(status));
  }
  return 0;
}
