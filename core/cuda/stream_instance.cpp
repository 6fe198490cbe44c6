#include "gigaseg/core/cuda/stream_instance.hpp"

#include "gigaseg/core/cuda/cuda_check.hpp"

namespace gigaseg::cuda {

Kokkos::Cuda make_stream_instance(void*& stream) {
  cudaStream_t created = nullptr;
  GIGASEG_CUDA_CHECK(cudaStreamCreateWithFlags(&created, cudaStreamNonBlocking));
  stream = created;
#if KOKKOS_VERSION >= 40200
  // Kokkos 4.2 made stream ownership explicit; we keep ownership and destroy it ourselves.
  return Kokkos::Cuda(created, Kokkos::Impl::ManageStream::no);
#else
  return Kokkos::Cuda(created);
#endif
}

void destroy_stream(void*& stream) {
  if (stream == nullptr) return;
  // Called from a destructor: report nothing, the process is tearing this context down.
  (void)cudaStreamDestroy(static_cast<cudaStream_t>(stream));
  stream = nullptr;
}

}  // namespace gigaseg::cuda
