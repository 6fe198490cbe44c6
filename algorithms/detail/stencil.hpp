#pragma once
// Neighbourhood work tiled through on-chip memory (the shared-memory tile with its halo).
//
// tiled_stencil(): a team per output tile loads the tile and its halo into team scratch (shared
// memory on CUDA) once, converting each input value to the scratch type S, then computes every
// output pixel of the tile from scratch. Interior tiles (tile and halo inside the image) load
// without any border arithmetic; only tiles that touch the image border resolve coordinates
// through the border rule, so the inner computation never branches on borders.
//
// The body is called as body(tile, ly, lx0, lx1, y, x0): outputs lx0 <= lx < lx1 of tile row ly,
// image row y, image column x0 + (lx - lx0). tile.row(ly)[lx + dx] is the input at (ly + dy, lx + dx)
// relative to the tile's origin for -ry <= dy <= ry, -rx <= dx <= rx. On GPUs each thread takes one
// pixel at a time (lx1 = lx0 + 1); on host backends a team is one thread and takes a whole tile row,
// so the body's loop over lx is a plain loop the compiler vectorises.
#include "gigaseg/core/error.hpp"
#include "gigaseg/core/image.hpp"
#include "gigaseg/core/translation_unit.hpp"

#include <Kokkos_Core.hpp>

#include <string>
#include <type_traits>

namespace gigaseg::detail {

// How a coordinate outside the image is resolved (OpenCV's names).
enum class Border {
  replicate,   // aaaaaa|abcdefgh|hhhhhhh
  reflect101,  // fedcb|abcdefgh|gfedcba
  constant,    // the fill value (used for morphology's neutral border)
};

// The index inside 0..n-1 that stands for i under `border`, or -1 for Border::constant outside.
KOKKOS_INLINE_FUNCTION index_t border_index(index_t i, index_t n, Border border) {
  if (i >= 0 && i < n) return i;
  if (border == Border::constant) return -1;
  if (n == 1) return 0;
  if (border == Border::replicate) return i < 0 ? 0 : n - 1;
  do {  // reflect101, repeated for offsets larger than the image, as cv::borderInterpolate does
    i = i < 0 ? -i : 2 * (n - 1) - i;
  } while (i < 0 || i >= n);
  return i;
}

template <class ExecSpace>
constexpr bool runs_on_host() {
  return Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible;
}

// The scratch tile of a team: rows of `stride` values, row 0 / column 0 at the tile's origin.
template <class S>
struct ScratchTile {
  S* origin;
  int stride;
  KOKKOS_INLINE_FUNCTION S const* row(int ly) const { return origin + ly * stride; }
};

// Output tile shape: 64 x 16 pixels on GPUs (256 threads, 4 pixels each); 256 x 16 on hosts (one
// thread runs along rows long enough to vectorise).
template <class ExecSpace>
struct TileShape {
  static constexpr int width = runs_on_host<ExecSpace>() ? 256 : 64;
  static constexpr int height = 16;
  static constexpr int threads = runs_on_host<ExecSpace>() ? 1 : 256;
};

template <class ExecSpace, class S, class T, class Body, class Unit = detail::unit_for<ExecSpace>>
void tiled_stencil(ExecSpace const& space, char const* label,
                   ImageView<T const, typename ExecSpace::memory_space> const& in, int rx, int ry, Border border,
                   S fill, Body body) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  using Shape = TileShape<ExecSpace>;
  constexpr bool on_host = runs_on_host<ExecSpace>();
  index_t const width = in.width(), height = in.height();
  if (width == 0 || height == 0) return;
  int const tile_w = Shape::width + 2 * rx, tile_h = Shape::height + 2 * ry;
  // Rounded up to 16 bytes, as Kokkos aligns the request (else get_shmem may find too little).
  std::size_t const scratch = (std::size_t(tile_w) * std::size_t(tile_h) * sizeof(S) + 15) / 16 * 16;
  // 48 KiB of shared memory per block on GPUs; host scratch is ordinary memory.
  GIGASEG_REQUIRE(scratch <= (on_host ? std::size_t(16) << 20 : std::size_t(48) << 10), ErrorKind::usage, label,
                  "neighbourhood of " + std::to_string(2 * rx + 1) + "x" + std::to_string(2 * ry + 1) +
                      " is too large for a tiled pass");
  index_t const tiles_x = (width + Shape::width - 1) / Shape::width;
  index_t const tiles_y = (height + Shape::height - 1) / Shape::height;
  GIGASEG_REQUIRE(tiles_x * tiles_y <= index_t(0x7fffffff), ErrorKind::resource, label, "image has too many tiles");
  Policy policy(space, int(tiles_x * tiles_y), Shape::threads);
  policy.set_scratch_size(0, Kokkos::PerTeam(scratch));
  Kokkos::parallel_for(
      label, policy, KOKKOS_LAMBDA(Member const& member) {
        index_t const tile = member.league_rank();
        index_t const x0 = (tile % tiles_x) * Shape::width, y0 = (tile / tiles_x) * Shape::height;
        S* const data = static_cast<S*>(member.team_scratch(0).get_shmem(scratch));
        bool const interior =
            x0 - rx >= 0 && y0 - ry >= 0 && x0 + Shape::width + rx <= width && y0 + Shape::height + ry <= height;
        int const count = tile_w * tile_h;
        if (interior) {
          Kokkos::parallel_for(Kokkos::TeamThreadRange(member, count), [&](int i) {
            int const ty = i / tile_w, tx = i - ty * tile_w;
            data[i] = S(in(y0 - ry + ty, x0 - rx + tx));
          });
        } else {
          Kokkos::parallel_for(Kokkos::TeamThreadRange(member, count), [&](int i) {
            int const ty = i / tile_w, tx = i - ty * tile_w;
            index_t const yy = border_index(y0 - ry + ty, height, border);
            index_t const xx = border_index(x0 - rx + tx, width, border);
            data[i] = yy < 0 || xx < 0 ? fill : S(in(yy, xx));
          });
        }
        member.team_barrier();
        ScratchTile<S> const view{data + ry * tile_w + rx, tile_w};
        int const rows = int(height - y0 < Shape::height ? height - y0 : Shape::height);
        int const cols = int(width - x0 < Shape::width ? width - x0 : Shape::width);
        if (on_host) {  // a constant; not `if constexpr`, which nvcc refuses in extended lambdas
          for (int ly = 0; ly < rows; ++ly) body(view, ly, 0, cols, y0 + ly, x0);
        } else {
          Kokkos::parallel_for(Kokkos::TeamThreadRange(member, Shape::width * Shape::height), [&](int i) {
            int const ly = i / Shape::width, lx = i - ly * Shape::width;
            if (ly < rows && lx < cols) body(view, ly, lx, lx + 1, y0 + ly, x0 + lx);
          });
        }
      });
}

}  // namespace gigaseg::detail
