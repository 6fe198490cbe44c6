// NPP peer for bench_label (NPP's union-find labelling): the same two
// 20000 x 20000 masks as perf/bench_label.cpp (integer hashes, bit for bit), labelled with
// nppiLabelMarkersUF_8u32u_C1R (nppiNormInf: 8-connectivity; NPP labels the background's
// components too), then its label compression where NPP's buffer size fits an int. Median of
// events-timed runs after a warm-up.
//
//   nvcc -O2 -std=c++20 -arch=sm_90 npp_label.cu -o npp_label -lnppif -lnppc -lnppial -lnppist -lnppidei -lnppim
#include <cuda_runtime.h>
#include <npp.h>
#include <nppi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                  \
  do {                                                                         \
    auto e = (x);                                                              \
    if (e != 0) {                                                              \
      std::printf("error %d at %s:%d (%s)\n", int(e), __FILE__, __LINE__, #x); \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

template <class F>
static float median_ms(F f, int n = 7) {
  f();
  CK(cudaDeviceSynchronize());
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  std::vector<float> v;
  for (int i = 0; i < n; ++i) {
    cudaEventRecord(a);
    f();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    v.push_back(ms);
  }
  std::sort(v.begin(), v.end());
  return v[n / 2];
}

static unsigned char mask_pixel(int kind, unsigned y, unsigned x, unsigned width) {
  unsigned s;
  if (kind == 0) {
    s = (y * width + x) * 2654435761u;
    s ^= s >> 13;
    s *= 0x5bd1e995u;
    s ^= s >> 15;
  } else {
    s = (y / 24) * 7919u + (x / 24) * 104729u;
    s ^= s >> 13;
    s *= 2654435761u;
  }
  return (s >> 16) & 1u ? 255 : 0;
}

int main(int argc, char** argv) {
  int const side = argc > 1 ? std::atoi(argv[1]) : 20000;
  size_t const n = size_t(side) * side;
  NppiSize const roi{side, side};
  NppStreamContext ctx{};
  cudaDeviceProp pr;
  CK(cudaGetDeviceProperties(&pr, 0));
  ctx.hStream = 0;
  ctx.nCudaDeviceId = 0;
  ctx.nMultiProcessorCount = pr.multiProcessorCount;
  ctx.nMaxThreadsPerMultiProcessor = pr.maxThreadsPerMultiProcessor;
  ctx.nMaxThreadsPerBlock = pr.maxThreadsPerBlock;
  ctx.nSharedMemPerBlock = pr.sharedMemPerBlock;
  ctx.nCudaDevAttrComputeCapabilityMajor = pr.major;
  ctx.nCudaDevAttrComputeCapabilityMinor = pr.minor;
  std::vector<unsigned char> host(n);
  for (int kind = 0; kind < 2; ++kind) {
    for (int y = 0; y < side; ++y)
      for (int x = 0; x < side; ++x) host[size_t(y) * side + x] = mask_pixel(kind, y, x, side);
    Npp8u* src;
    Npp32u* labels;
    CK(cudaMalloc(&src, n));
    CK(cudaMalloc(&labels, n * 4));
    CK(cudaMemcpy(src, host.data(), n, cudaMemcpyHostToDevice));
    int buffer_size = 0;
    CK(nppiLabelMarkersUFGetBufferSize_32u_C1R(roi, &buffer_size));
    Npp8u* buffer;
    CK(cudaMalloc(&buffer, buffer_size));
    float const t_uf = median_ms(
        [&] { CK(nppiLabelMarkersUF_8u32u_C1R_Ctx(src, side, labels, side * 4, roi, nppiNormInf, buffer, ctx)); });
    int compress_size = 0;
    bool const compress_ok =
        nppiCompressMarkerLabelsGetBufferSize_32u_C1R(side * side, &compress_size) == 0 && compress_size > 0;
    float t_both = -1;
    int max_label = 0;
    if (compress_ok) {
      Npp8u* compress_buffer;
      CK(cudaMalloc(&compress_buffer, compress_size));
      t_both = median_ms([&] {
        CK(nppiLabelMarkersUF_8u32u_C1R_Ctx(src, side, labels, side * 4, roi, nppiNormInf, buffer, ctx));
        CK(nppiCompressMarkerLabelsUF_32u_C1IR_Ctx(labels, side * 4, roi, side * side, &max_label, compress_buffer,
                                                   ctx));
      });
      cudaFree(compress_buffer);
    }
    std::printf("npp %d^2 %s: labelUF %.3f ms, with compression %s%.3f ms (max label %d, background included)\n", side,
                kind == 0 ? "random" : "blobs", t_uf, compress_ok ? "" : "FAILED buffer size ", t_both, max_label);
    cudaFree(src);
    cudaFree(labels);
    cudaFree(buffer);
  }
}
