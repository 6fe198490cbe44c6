#pragma once
// Tile-local relaxation to a fixpoint, the parallel engine behind the watershed's minimum-path
// keys and the markers' morphological reconstruction.
//
// `values` holds one value a pixel; `update(y, x, own, at)` returns the pixel's new value from its
// own and its neighbours' (`at(ny, nx)`, any of the 8 neighbours inside the image). Updates must be
// monotone (each only ever lowers, or only ever raises, a value, towards a unique fixpoint): then
// any order of updates, racing or not, ends at the same values, so the result is deterministic.
//
// A team loads a tile and its one-pixel halo into scratch memory, relaxes the tile there until it
// stops changing (the halo as loaded), and writes it back; sweeps over all tiles repeat until no
// tile changes. Propagation inside a tile costs scratch accesses only, so the global sweeps needed
// fall from the longest path in pixels to about that path in tiles. GPU: 32 x 32 tiles, the team's
// threads updating the tile's pixels in parallel rounds from one scratch copy into another (no
// thread reads a value another writes in the same round). Host: one thread a 64 x 256 tile,
// sweeping it forward and backward in place (Gauss-Seidel).
#include "gigaseg/algorithms/detail/stencil.hpp"
#include "gigaseg/core/image.hpp"
#include "gigaseg/core/translation_unit.hpp"

#include <Kokkos_Core.hpp>

namespace gigaseg::detail {

// A tile and its halo in scratch memory, addressed by image coordinates.
template <class V>
struct TileAccess {
  V* data;
  index_t y0, x0, stride;  // (y0, x0): the image pixel at data[0] (the halo's top-left)
  KOKKOS_INLINE_FUNCTION V& operator()(index_t y, index_t x) const { return data[(y - y0) * stride + (x - x0)]; }
};

template <class ExecSpace, class V, class Update, class Unit = detail::unit_for<ExecSpace>>
void relax_to_fixpoint(ExecSpace const& space, char const* name,
                       ImageView<V, typename ExecSpace::memory_space> const& values, Update const& update) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  constexpr bool on_host = runs_on_host<ExecSpace>();
  constexpr index_t tile_h = on_host ? 64 : 32, tile_w = on_host ? 256 : 32;
  constexpr index_t stride = tile_w + 2;
  constexpr int scratch_level = on_host ? 1 : 0;
  index_t const width = values.width(), height = values.height();
  if (width == 0 || height == 0) return;
  index_t const tiles_x = (width + tile_w - 1) / tile_w, tiles_y = (height + tile_h - 1) / tile_h;
  // Rounded up to 16 bytes: Kokkos aligns scratch requests, and a request rounded past the size
  // reserved would get no memory at all (1-byte values: 34 x 34 = 1156 bytes).
  std::size_t const tile_bytes = (std::size_t((tile_h + 2) * stride) * sizeof(V) + 15) / 16 * 16;
  // GPUs: two copies, then three round flags.
  std::size_t const bytes = on_host ? tile_bytes : 2 * tile_bytes + 16;
  for (int sweep = 0;; ++sweep) {
    Policy policy = on_host ? Policy(space, int(tiles_x * tiles_y), 1) : Policy(space, int(tiles_x * tiles_y), 256);
    policy.set_scratch_size(scratch_level, Kokkos::PerTeam(bytes));
    int changed = 0;
    Kokkos::parallel_reduce(
        name, policy,
        KOKKOS_LAMBDA(Member const& member, int& any) {
          index_t const ty = member.league_rank() / tiles_x, tx = member.league_rank() % tiles_x;
          index_t const y0 = ty * tile_h, x0 = tx * tile_w;
          index_t const y1 = y0 + tile_h < height ? y0 + tile_h : height,
                        x1 = x0 + tile_w < width ? x0 + tile_w : width;
          // Tile and halo sizes fit in int: local index arithmetic in 32 bits (64-bit division is
          // a long instruction sequence on GPUs).
          int const th = int(y1 - y0), tw = int(x1 - x0);
          int const top = y0 > 0 ? 1 : 0, left = x0 > 0 ? 1 : 0;
          int const hh = th + top + (y1 < height ? 1 : 0), hw = tw + left + (x1 < width ? 1 : 0);
          char* const base = static_cast<char*>(member.team_scratch(scratch_level).get_shmem(bytes));
          V* const scratch = reinterpret_cast<V*>(base);
          TileAccess<V> at{scratch, y0 - 1, x0 - 1, stride};
          TileAccess<V> to{on_host ? scratch : reinterpret_cast<V*>(base + tile_bytes), y0 - 1, x0 - 1, stride};
          int* const round_flags = on_host ? nullptr : reinterpret_cast<int*>(base + 2 * tile_bytes);
          Kokkos::parallel_for(Kokkos::TeamThreadRange(member, hh * hw), [&](int i) {
            index_t const y = y0 - top + i / hw, x = x0 - left + i % hw;
            V const v = values(y, x);
            at(y, x) = v;
            to(y, x) = v;
          });
          if (!on_host)
            Kokkos::single(Kokkos::PerTeam(member), [&] { round_flags[0] = round_flags[1] = round_flags[2] = 0; });
          member.team_barrier();
          // Updates the tile's pixel (ly, lx) from `at` into `to` (the same copy on hosts); 1 if it
          // changed.
          auto relax_pixel = [&](int ly, int lx) -> int {
            index_t const y = y0 + ly, x = x0 + lx;
            V const own = at(y, x);
            V const next = update(y, x, own, at);
            to(y, x) = next;
            return next == own ? 0 : 1;
          };
          int tile_changed = 0;
          for (int round = 0;; ++round) {
            int round_changed = 0;
            if (on_host) {
              // Forward and backward raster sweeps in turn: chains along either direction settle
              // within one sweep.
              bool const backward = round % 2 == 1;
              for (int i = 0; i < th * tw; ++i) {
                int const j = backward ? th * tw - 1 - i : i;
                round_changed |= relax_pixel(j / tw, j % tw);
              }
            } else {
              // Threads take the pixels of a 32-wide tile's rows; a changed pixel sets this
              // round's flag in scratch. Three flags in turn: the one read this round, the one
              // cleared for the next, and the previous one that slower threads may still be reading
              // (reads happen after a barrier, clears before the next).
              int const slot = round % 3;
              int local = 0;
              Kokkos::parallel_for(Kokkos::TeamThreadRange(member, int(tile_h * tile_w)), [&](int i) {
                int const ly = i / int(tile_w), lx = i % int(tile_w);
                if (ly < th && lx < tw) local |= relax_pixel(ly, lx);
              });
              if (local) Kokkos::atomic_fetch_or(&round_flags[slot], 1);
              Kokkos::single(Kokkos::PerTeam(member), [&] { round_flags[(round + 1) % 3] = 0; });
              member.team_barrier();
              round_changed = round_flags[slot];
              TileAccess<V> const swap = at;  // the new values are read next round
              at = to;
              to = swap;
            }
            if (!round_changed) break;
            tile_changed = 1;
          }
          if (tile_changed) {
            Kokkos::parallel_for(Kokkos::TeamThreadRange(member, th * tw), [&](int i) {
              index_t const y = y0 + i / tw, x = x0 + i % tw;
              values(y, x) = at(y, x);
            });
            Kokkos::single(Kokkos::PerTeam(member), [&] { any = 1; });
          }
        },
        Kokkos::Max<int>(changed));
    if (changed <= 0) break;
  }
}

}  // namespace gigaseg::detail
