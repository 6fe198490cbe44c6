#!/usr/bin/env bash
# On the GPU machine: where a CUDA process's start goes, and what a 1.6 GB download costs. Prints
# the GPU and its persistence mode; a program timing cuInit, the primary context, the device's
# properties and a pinned allocation (built here with nvcc), three times; `gigaseg info` with the
# CUDA and OpenMP backends (a CUDA build starts the CUDA runtime either way) and with eager module
# loading; the dynamic loader's share (LD_DEBUG=statistics); then a transfer program: 1.6 GB from
# the GPU into fresh pageable memory (a parallel first touch, then cudaMemcpy) and through two
# pinned blocks of 16 or 64 MiB with the host side copied on every OpenMP thread.
#   bash scripts/device-measure-startup.sh      (from the repository root, with .devbuild carried)
set -u
tar -xzf .devbuild/devbuild.tgz -C .devbuild
export LD_LIBRARY_PATH=$PWD/.devbuild/lib
G=$PWD/.devbuild/gigaseg
nvidia-smi --query-gpu=name,persistence_mode,driver_version,clocks.sm --format=csv
cat > /tmp/init.cu <<'C'
#include <cuda_runtime.h>
#include <cuda.h>
#include <chrono>
#include <cstdio>
int main(){auto t0=std::chrono::steady_clock::now();
cuInit(0); auto t1=std::chrono::steady_clock::now();
cudaSetDevice(0); cudaFree(0); auto t2=std::chrono::steady_clock::now();
cudaDeviceProp p; cudaGetDeviceProperties(&p,0); auto t3=std::chrono::steady_clock::now();
void* h; cudaMallocHost(&h, 1<<20); auto t4=std::chrono::steady_clock::now();
auto ms=[](auto a, auto b){return std::chrono::duration<double,std::milli>(b-a).count();};
printf("cuInit %.1f ctx %.1f props %.1f hostalloc %.1f ms\n", ms(t0,t1), ms(t1,t2), ms(t2,t3), ms(t3,t4));}
C
nvcc -O2 -o /tmp/init /tmp/init.cu -lcuda 2>&1 | tail -2
for i in 1 2 3; do /usr/bin/time -f "init-prog wall %e s" /tmp/init; done
for i in 1 2 3; do /usr/bin/time -f "info cuda %e s" $G --backend cuda info >/dev/null; done
for i in 1 2 3; do /usr/bin/time -f "info openmp %e s" $G --backend openmp info > /dev/null; done
for i in 1 2; do CUDA_MODULE_LOADING=EAGER /usr/bin/time -f "info eager %e s" $G --backend cuda info > /dev/null; done
/usr/bin/time -f "version %e s" $G --version
LD_DEBUG=statistics $G --version 2>&1 | grep -i "total startup\|relocation" | head -4

cat > /tmp/xfer.cu <<'C'
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <omp.h>
using clk = std::chrono::steady_clock;
static double ms(clk::time_point a, clk::time_point b){return std::chrono::duration<double,std::milli>(b-a).count();}
int main(){
  size_t const N = size_t(1600) << 20; cudaFree(0);
  char* d; cudaMalloc(&d, N); cudaMemset(d, 1, N); cudaDeviceSynchronize();
  for (int rep = 0; rep < 2; ++rep) {
  auto t0 = clk::now(); char* h = (char*)malloc(N);
  #pragma omp parallel for schedule(static)
  for (long i = 0; i < long(N >> 12); ++i) h[size_t(i) << 12] = 0;
  auto t1 = clk::now(); cudaMemcpy(h, d, N, cudaMemcpyDeviceToHost); auto t2 = clk::now();
  cudaMemcpy(h, d, N, cudaMemcpyDeviceToHost); auto t3 = clk::now();
  printf("pageable: touch %.1f ms, D2H %.1f ms, again %.1f ms\n", ms(t0,t1), ms(t1,t2), ms(t2,t3));
  auto u0 = clk::now(); cudaMemcpy(d, h, N, cudaMemcpyHostToDevice); auto u1 = clk::now();
  printf("pageable H2D %.1f ms\n", ms(u0,u1));
  free(h);
  }
  for (size_t chunk : {size_t(16) << 20, size_t(64) << 20}) {
    auto a0 = clk::now(); char* p[2]; cudaMallocHost(&p[0], chunk); cudaMallocHost(&p[1], chunk); auto a1 = clk::now();
    char* h = (char*)malloc(N); cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking); cudaEvent_t e[2]; cudaEventCreate(&e[0]); cudaEventCreate(&e[1]);
    auto b0 = clk::now();
    size_t n = (N + chunk - 1) / chunk;
    cudaMemcpyAsync(p[0], d, chunk, cudaMemcpyDeviceToHost, s); cudaEventRecord(e[0], s);
    for (size_t k = 0; k < n; ++k) {
      if (k + 1 < n) { size_t off=(k+1)*chunk, len = std::min(chunk, N-off); cudaMemcpyAsync(p[(k+1)%2], d+off, len, cudaMemcpyDeviceToHost, s); cudaEventRecord(e[(k+1)%2], s);}
      cudaEventSynchronize(e[k%2]); size_t off=k*chunk, len=std::min(chunk,N-off); char* src=p[k%2];
      #pragma omp parallel for schedule(static)
      for (long i = 0; i < 64; ++i) { size_t a = len*i/64, b = len*(i+1)/64; memcpy(h+off+a, src+a, b-a); }
    }
    auto b1 = clk::now();
    // pure pinned DMA rate
    auto c0 = clk::now(); for (size_t k=0;k<n;++k){size_t off=k*chunk,len=std::min(chunk,N-off); cudaMemcpyAsync(p[k%2], d+off, len, cudaMemcpyDeviceToHost, s);} cudaStreamSynchronize(s); auto c1 = clk::now();
    printf("staged chunk %zu MiB: pin alloc %.1f ms, staged D2H into fresh pageable %.1f ms, DMA only %.1f ms (threads %d)\n", chunk>>20, ms(a0,a1), ms(b0,b1), ms(c0,c1), omp_get_max_threads());
    cudaFreeHost(p[0]); cudaFreeHost(p[1]); free(h);
  }
}
C
nvcc -O2 -Xcompiler -fopenmp -o /tmp/xfer /tmp/xfer.cu 2>&1 | tail -2
/tmp/xfer

