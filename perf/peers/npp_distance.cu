// NPP peer for bench_distance: nppiDistanceTransformPBA_8u32f_C1R_Ctx, NPP's exact
// Euclidean transform (PBA+), float output, on the masks bench_distance wrote
// (GIGASEG_PEER_INPUTS=DIR: DIR/cells_<side>.u8, raw rows, zero = site), median of 9 event-timed
// runs after a warm-up. Sites are the zero pixels (nMinSiteValue = nMaxSiteValue = 0), as in
// gigaseg's transform; the Voronoi outputs are not asked for.
//   nvcc -O2 -arch=sm_90 npp_distance.cu -o npp_distance -lnppif -lnppc
#include "npp_timing.cuh"

#include <cuda_runtime.h>
#include <nppi_filtering_functions.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  std::string const dir = argc > 1 ? argv[1] : ".";
  for (int side : {20000, 4096}) {
    std::string const path = dir + "/cells_" + std::to_string(side) + ".u8";
    std::vector<unsigned char> host(size_t(side) * side);
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f || std::fread(host.data(), 1, host.size(), f) != host.size()) {
      std::printf("npp_distance: cannot read %s\n", path.c_str());
      return 1;
    }
    std::fclose(f);
    Npp8u* src;
    Npp32f* dst;
    size_t src_pitch, dst_pitch;
    cudaMallocPitch(&src, &src_pitch, side, side);
    cudaMallocPitch(&dst, &dst_pitch, side * sizeof(float), side);
    cudaMemcpy2D(src, src_pitch, host.data(), side, side, side, cudaMemcpyHostToDevice);
    NppStreamContext const ctx = default_stream_context();
    NppiSize const roi{side, side};
    size_t buffer_bytes = 0;
    NppStatus status = nppiDistanceTransformPBAGetBufferSize(roi, &buffer_bytes);
    Npp8u* buffer = nullptr;
    cudaMalloc(&buffer, buffer_bytes);
    auto run = [&] {
      status = nppiDistanceTransformPBA_8u32f_C1R_Ctx(src, int(src_pitch), 0, 0, nullptr, 0, nullptr, 0, nullptr, 0,
                                                      dst, int(dst_pitch), roi, buffer, ctx);
    };
    float const ms = bench(run);
    // A spot check of the output: the largest distance, against the one the benchmark's mask implies.
    std::vector<float> out(size_t(side) * side);
    cudaMemcpy2D(out.data(), side * sizeof(float), dst, dst_pitch, side * sizeof(float), side, cudaMemcpyDeviceToHost);
    float most = 0;
    for (float v : out) most = std::max(most, v);
    std::printf(
        "npp nppiDistanceTransformPBA_8u32f_C1R_Ctx %dx%d: %.3f ms (median of 9; status %d; max distance %.3f)\n", side,
        side, ms, int(status), most);
    cudaFree(buffer);
    cudaFree(src);
    cudaFree(dst);
  }
  return 0;
}
