#pragma once
// Encoding a file in independent chunks (PNG row groups, TIFF strips or tiles) on several threads
// while the calling thread writes the finished chunks in order: the writer libraries (libpng,
// libtiff) are called from one thread only.
#include <cstddef>
#include <functional>
#include <vector>

namespace gigaseg::detail {

// Runs encode(i, bytes) for every i in [0, count) on up to `threads` threads (bytes comes empty)
// and, on the calling thread, write(i, bytes) in increasing i as soon as chunk i is encoded. At
// most 2 x threads encoded chunks are held at once. The first exception thrown by either stops
// the rest and is rethrown once every thread has ended. threads <= 1 encodes on the calling thread.
void encode_in_order(std::size_t count, int threads,
                     std::function<void(std::size_t, std::vector<unsigned char>&)> const& encode,
                     std::function<void(std::size_t, std::vector<unsigned char>&)> const& write);

}  // namespace gigaseg::detail
