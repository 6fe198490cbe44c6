#include "gigaseg/backends/openmp/histogram_openmp.hpp"

#include <array>
#include <cstring>
#include <vector>

namespace gigaseg::tuned {

bool histogram_u8(Kokkos::OpenMP const& space, ImageView<std::uint8_t const, Kokkos::HostSpace> const& image,
                  Counts<Kokkos::HostSpace> const& counts) {
  int const threads = space.concurrency();
  index_t const height = image.height(), width = image.width();
  std::vector<std::array<std::uint64_t, 256>> partial{std::size_t(threads)};
  Kokkos::parallel_for("gigaseg::histogram[OpenMP]", Kokkos::RangePolicy<Kokkos::OpenMP>(space, 0, threads),
                       [&](int thread) {
                         std::array<std::uint64_t, 256>& total = partial[std::size_t(thread)];
                         total.fill(0);
                         std::uint32_t sub[4][256] = {};
                         std::uint64_t runs[256] = {};  // 16-byte stretches of one value, counted at once
                         index_t const y0 = height * thread / threads, y1 = height * (thread + 1) / threads;
                         index_t pending = 0;  // pixels counted into `sub` since the last flush
                         auto flush = [&] {
                           for (int b = 0; b < 256; ++b) {
                             for (auto& histogram : sub) {
                               total[std::size_t(b)] += histogram[b];
                               histogram[b] = 0;
                             }
                           }
                           pending = 0;
                         };
                         auto count8 = [&](std::uint64_t word) {
                           ++sub[0][word & 0xff];
                           ++sub[1][(word >> 8) & 0xff];
                           ++sub[2][(word >> 16) & 0xff];
                           ++sub[3][(word >> 24) & 0xff];
                           ++sub[0][(word >> 32) & 0xff];
                           ++sub[1][(word >> 40) & 0xff];
                           ++sub[2][(word >> 48) & 0xff];
                           ++sub[3][word >> 56];
                         };
                         for (index_t y = y0; y < y1; ++y) {
                           std::uint8_t const* row = image.row(y);
                           index_t x = 0;
                           // 16 bytes a step as two 8-byte words (rows start 128-byte aligned). A step of one value
                           // (a scan's background, a mask's inside) is one add: counting it byte by byte would chain
                           // eight increments of one counter through store forwarding, ~4x slower than distinct bins.
                           for (; x + 16 <= width; x += 16) {
                             std::uint64_t first, second;
                             std::memcpy(&first, row + x, 8);
                             std::memcpy(&second, row + x + 8, 8);
                             if (first == second && first == (first & 0xff) * 0x0101010101010101ull) {
                               runs[first & 0xff] += 16;
                               continue;
                             }
                             count8(first);
                             count8(second);
                           }
                           for (; x < width; ++x) ++sub[0][row[x]];
                           pending += width;
                           if (pending > (index_t(1) << 31)) flush();  // 32-bit counters: flush long before 2^32
                         }
                         flush();
                         for (int b = 0; b < 256; ++b) total[std::size_t(b)] += runs[b];
                       });
  space.fence();
  auto host_counts = counts;  // HostSpace: written directly
  for (int b = 0; b < 256; ++b) {
    std::uint64_t sum = 0;
    for (auto const& p : partial) sum += p[std::size_t(b)];
    host_counts(b) = sum;
  }
  return true;
}

}  // namespace gigaseg::tuned
