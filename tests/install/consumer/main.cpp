// A program outside the gigaseg tree, built against the installed package only: draws two
// squares and a diagonal pair into an image with a Kokkos kernel, labels it with 8-connectivity
// through the public <gigaseg/...> headers, reads the region statistics, and writes the labels.
#include <gigaseg/algorithms/label.hpp>
#include <gigaseg/algorithms/region_stats.hpp>
#include <gigaseg/gigaseg.hpp>

#include <cstdio>

int main(int argc, char** argv) {
  gigaseg::Runtime runtime;
  int status = 0;
  {
    gigaseg::ExecutionContext context;
    auto const& space = context.device();
    using Memory = Kokkos::DefaultExecutionSpace::memory_space;
    gigaseg::ImageView<std::uint8_t, Memory> mask("consumer::mask", 33, 17);
    Kokkos::parallel_for(
        "consumer::draw",
        Kokkos::MDRangePolicy<Kokkos::DefaultExecutionSpace, Kokkos::Rank<2>>(space, {0, 0}, {17, 33}),
        KOKKOS_LAMBDA(std::int64_t y, std::int64_t x) {
          bool const first = y >= 2 && y < 6 && x >= 2 && x < 6;       // 16 pixels
          bool const second = y >= 10 && y < 13 && x >= 20 && x < 30;  // 30 pixels
          bool const diagonal = (y == 15 && x == 0) || (y == 16 && x == 1);
          mask(y, x) = (first || second || diagonal) ? 255 : 0;
        });
    gigaseg::ImageView<gigaseg::Label, Memory> labels("consumer::labels", 33, 17);
    // A non-const image is accepted as it is.
    std::int64_t const components = gigaseg::label(space, mask, labels);
    auto const stats = gigaseg::region_stats(space, gigaseg::ImageView<gigaseg::Label const, Memory>(labels),
                                             components, gigaseg::ImageView<std::uint8_t const, Memory>(mask));
    if (components != 3 || stats.size() != 3 || stats[0].area != 16 || stats[1].area != 30 || stats[2].area != 2 ||
        stats[1].x0 != 20 || stats[1].y1 != 12) {
      std::printf("consumer: wrong result: %lld components\n", static_cast<long long>(components));
      status = 1;
    } else {
      auto host = gigaseg::clone<Kokkos::HostSpace>(space, labels, "consumer::host");
      gigaseg::write_image(argc > 1 ? argv[1] : "consumer.tif", host);
      std::printf("consumer ok: %lld components, areas %lld %lld %lld\n", static_cast<long long>(components),
                  static_cast<long long>(stats[0].area), static_cast<long long>(stats[1].area),
                  static_cast<long long>(stats[2].area));
    }
  }
  return status;
}
