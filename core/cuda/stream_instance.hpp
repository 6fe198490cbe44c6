#pragma once
#include <Kokkos_Core.hpp>

namespace gigaseg::cuda {
// A Kokkos::Cuda instance on a new stream; the stream is returned in `stream` for destroy_stream.
Kokkos::Cuda make_stream_instance(void*& stream);
void destroy_stream(void*& stream);
}  // namespace gigaseg::cuda
