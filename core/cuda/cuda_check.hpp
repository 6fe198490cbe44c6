#pragma once
// Every CUDA runtime call's status is checked; a failure becomes a gigaseg::Error naming the call.
#include "gigaseg/core/error.hpp"

#include <cuda_runtime_api.h>

#include <string>

namespace gigaseg::cuda {

[[noreturn]] inline void throw_cuda_error(cudaError_t status, char const* call, char const* file, int line) {
  ErrorKind const kind =
      (status == cudaErrorMemoryAllocation || status == cudaErrorNoDevice || status == cudaErrorInsufficientDriver)
          ? ErrorKind::resource
          : ErrorKind::internal;
  throw Error(kind, call, std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status), file, line);
}

}  // namespace gigaseg::cuda

#define GIGASEG_CUDA_CHECK(call)                                                                                       \
  do {                                                                                                                 \
    cudaError_t const gigaseg_status_ = (call);                                                                        \
    if (gigaseg_status_ != cudaSuccess) ::gigaseg::cuda::throw_cuda_error(gigaseg_status_, #call, __FILE__, __LINE__); \
  } while (false)
