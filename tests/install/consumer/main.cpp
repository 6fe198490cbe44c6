// A program outside the gigaseg tree: allocates a pitched image, fills it with a Kokkos kernel,
// copies it to the host and writes it as PNG.
#include <gigaseg.hpp>

#include <cstdio>

int main(int argc, char** argv) {
  gigaseg::Runtime runtime;
  {
    gigaseg::ExecutionContext context;
    gigaseg::ImageView<std::uint8_t> image("consumer::image", 33, 17);
    Kokkos::parallel_for(
        "consumer::fill",
        Kokkos::MDRangePolicy<Kokkos::DefaultExecutionSpace, Kokkos::Rank<2>>(context.device(), {0, 0}, {17, 33}),
        KOKKOS_LAMBDA(std::int64_t y, std::int64_t x) { image(y, x) = std::uint8_t(x + y); });
    auto host = gigaseg::clone<Kokkos::HostSpace>(context.device(), image, "consumer::host");
    if (host(16, 32) != 48) return 1;
    gigaseg::write_image(argc > 1 ? argv[1] : "consumer.png", host);
  }
  std::puts("consumer ok");
  return 0;
}
