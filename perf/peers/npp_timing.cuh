// Shared by the NPP peers: the median of CUDA-event-timed runs after a warm-up, and a stream
// context for the default stream (NPP 13 has only the _Ctx entry points).
#pragma once
#include <cuda_runtime.h>
#include <nppdefs.h>

#include <algorithm>
#include <vector>

template <class F>
float bench(F f, int n = 9) {
  f();
  cudaDeviceSynchronize();
  std::vector<float> ts;
  cudaEvent_t s, e;
  cudaEventCreate(&s);
  cudaEventCreate(&e);
  for (int i = 0; i < n; ++i) {
    cudaEventRecord(s);
    f();
    cudaEventRecord(e);
    cudaEventSynchronize(e);
    float ms;
    cudaEventElapsedTime(&ms, s, e);
    ts.push_back(ms);
  }
  std::sort(ts.begin(), ts.end());
  return ts[ts.size() / 2];
}

inline NppStreamContext default_stream_context() {
  NppStreamContext ctx{};
  ctx.hStream = 0;
  cudaGetDevice(&ctx.nCudaDeviceId);
  cudaDeviceGetAttribute(&ctx.nMultiProcessorCount, cudaDevAttrMultiProcessorCount, ctx.nCudaDeviceId);
  cudaDeviceGetAttribute(&ctx.nMaxThreadsPerMultiProcessor, cudaDevAttrMaxThreadsPerMultiProcessor, ctx.nCudaDeviceId);
  cudaDeviceGetAttribute(&ctx.nMaxThreadsPerBlock, cudaDevAttrMaxThreadsPerBlock, ctx.nCudaDeviceId);
  int shared = 0;
  cudaDeviceGetAttribute(&shared, cudaDevAttrMaxSharedMemoryPerBlock, ctx.nCudaDeviceId);
  ctx.nSharedMemPerBlock = size_t(shared);
  cudaDeviceGetAttribute(&ctx.nCudaDevAttrComputeCapabilityMajor, cudaDevAttrComputeCapabilityMajor, ctx.nCudaDeviceId);
  cudaDeviceGetAttribute(&ctx.nCudaDevAttrComputeCapabilityMinor, cudaDevAttrComputeCapabilityMinor, ctx.nCudaDeviceId);
  return ctx;
}
