#include "tests/generators.hpp"

#include <random>

namespace gigaseg::test {

HostImage<std::uint8_t> random_mask(index_t width, index_t height, double density, std::uint64_t seed) {
  HostImage<std::uint8_t> image("test::random_mask", width, height);
  std::mt19937_64 rng(seed);
  std::bernoulli_distribution on(density);
  for (index_t y = 0; y < height; ++y)
    for (index_t x = 0; x < width; ++x) image(y, x) = on(rng) ? 255 : 0;
  return image;
}

HostImage<std::uint8_t> spiral(index_t width, index_t height) {
  HostImage<std::uint8_t> image("test::spiral", width, height);
  for (index_t y = 0; y < height; ++y)
    for (index_t x = 0; x < width; ++x) image(y, x) = 0;
  // Walk inwards: right, down, left, up, shrinking the bounds by 2 after each side so that the
  // turns stay one pixel apart.
  index_t left = 0, top = 0, right = width - 1, bottom = height - 1;
  index_t x = 0, y = 0;
  image(0, 0) = 255;
  int direction = 0;
  bool moved = true;
  while (moved) {
    moved = false;
    switch (direction) {
      case 0:
        while (x < right) {
          image(y, ++x) = 255;
          moved = true;
        }
        top += 2;
        break;
      case 1:
        while (y < bottom) {
          image(++y, x) = 255;
          moved = true;
        }
        right -= 2;
        break;
      case 2:
        while (x > left) {
          image(y, --x) = 255;
          moved = true;
        }
        bottom -= 2;
        break;
      case 3:
        while (y > top) {
          image(--y, x) = 255;
          moved = true;
        }
        left += 2;
        break;
    }
    direction = (direction + 1) % 4;
    if (left > right || top > bottom) break;
  }
  return image;
}

HostImage<std::uint8_t> checkerboard(index_t width, index_t height, index_t cell) {
  HostImage<std::uint8_t> image("test::checkerboard", width, height);
  for (index_t y = 0; y < height; ++y)
    for (index_t x = 0; x < width; ++x) image(y, x) = ((x / cell + y / cell) % 2 == 0) ? 255 : 0;
  return image;
}

template <class T, class Draw>
HostImage<T> fill(char const* label, index_t width, index_t height, Draw draw) {
  HostImage<T> image(label, width, height);
  for (index_t y = 0; y < height; ++y)
    for (index_t x = 0; x < width; ++x) image(y, x) = draw();
  return image;
}

HostImage<std::uint8_t> noise_u8(index_t width, index_t height, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  return fill<std::uint8_t>("test::noise_u8", width, height, [&] { return std::uint8_t(rng()); });
}
HostImage<std::uint16_t> noise_u16(index_t width, index_t height, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  return fill<std::uint16_t>("test::noise_u16", width, height, [&] { return std::uint16_t(rng()); });
}
HostImage<float> noise_f32(index_t width, index_t height, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> value(-1000.0f, 1000.0f);
  return fill<float>("test::noise_f32", width, height, [&] { return value(rng); });
}
HostImage<Rgb8> noise_rgb8(index_t width, index_t height, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  return fill<Rgb8>("test::noise_rgb8", width, height, [&] {
    auto const v = rng();
    return Rgb8{std::uint8_t(v), std::uint8_t(v >> 8), std::uint8_t(v >> 16)};
  });
}

}  // namespace gigaseg::test
