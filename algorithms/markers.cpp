// The host decisions of algorithms/markers.hpp: which markers stay apart, which regions merge.
// Both work on per-label tables only (a few entries a cell), after the pixel work on the backend.
#include "gigaseg/algorithms/markers.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <numeric>
#include <unordered_map>
#include <utility>
#include <vector>

namespace gigaseg::detail {

std::vector<Label> separate_markers(std::vector<MarkerSummary> const& markers, float min_separation) {
  std::size_t const count = markers.empty() ? 0 : markers.size() - 1;
  std::vector<std::size_t> order(count);
  std::iota(order.begin(), order.end(), std::size_t(1));
  // Higher first; equal heights: the lower label first.
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return markers[a].height != markers[b].height ? markers[a].height > markers[b].height : a < b;
  });
  double const cell = min_separation;
  double const limit = double(min_separation) * double(min_separation);
  // Kept markers by grid cell of side min_separation: only the 3 x 3 cells around one can be nearer.
  std::unordered_map<std::uint64_t, std::vector<std::size_t>> grid;
  auto key = [](std::int64_t cx, std::int64_t cy) { return std::uint64_t(cx) << 32 ^ std::uint64_t(cy & 0xffffffff); };
  std::vector<char> kept(count + 1, 0);
  for (std::size_t m : order) {
    MarkerSummary const& s = markers[m];
    double const x = s.sum_x / double(s.area), y = s.sum_y / double(s.area);
    auto const gx = std::int64_t(std::floor(x / cell)), gy = std::int64_t(std::floor(y / cell));
    bool near = false;
    for (std::int64_t dy = -1; dy <= 1 && !near; ++dy)
      for (std::int64_t dx = -1; dx <= 1 && !near; ++dx) {
        auto const it = grid.find(key(gx + dx, gy + dy));
        if (it == grid.end()) continue;
        for (std::size_t o : it->second) {
          MarkerSummary const& t = markers[o];
          if (t.component != s.component) continue;
          double const ox = t.sum_x / double(t.area) - x, oy = t.sum_y / double(t.area) - y;
          if (ox * ox + oy * oy < limit) {
            near = true;
            break;
          }
        }
      }
    if (near) continue;
    kept[m] = 1;
    grid[key(gx, gy)].push_back(m);
  }
  std::vector<Label> new_id(count + 1, 0);
  Label next = 0;
  for (std::size_t m = 1; m <= count; ++m)
    if (kept[m]) new_id[m] = ++next;
  return new_id;
}

std::vector<Label> merge_plan(std::vector<index_t> const& area, std::vector<index_t> const& first,
                              std::vector<std::uint64_t> const& edges, index_t min_area, index_t& merged_count) {
  std::size_t const count = area.empty() ? 0 : area.size() - 1;
  // Boundary lengths between label pairs, and each label's neighbours.
  std::map<std::pair<Label, Label>, index_t> shared;
  for (std::uint64_t e : edges) ++shared[{Label(e >> 32), Label(e & 0xffffffffu)}];
  std::vector<std::vector<std::pair<Label, index_t>>> neighbours(count + 1);
  for (auto const& [pair, length] : shared) {
    neighbours[pair.first].emplace_back(pair.second, length);
    neighbours[pair.second].emplace_back(pair.first, length);
  }
  std::vector<Label> parent(count + 1);
  std::iota(parent.begin(), parent.end(), Label(0));
  auto find = [&](Label l) {
    while (parent[l] != l) l = parent[l] = parent[parent[l]];
    return l;
  };
  std::vector<index_t> merged_area(area);
  std::vector<std::vector<Label>> members(count + 1);
  for (std::size_t l = 1; l <= count; ++l) members[l].push_back(Label(l));
  std::vector<char> removed(count + 1, 0);
  std::vector<Label> order;
  for (std::size_t l = 1; l <= count; ++l)
    if (area[l] > 0 && area[l] < min_area) order.push_back(Label(l));
  std::sort(order.begin(), order.end(),
            [&](Label a, Label b) { return area[a] != area[b] ? area[a] < area[b] : a < b; });
  for (Label small : order) {
    Label const root = find(small);
    if (removed[root] || merged_area[root] >= min_area) continue;  // grown by earlier merges
    // The neighbour (by its current region) sharing the longest boundary with this region's pixels.
    std::map<Label, index_t> by_region;
    for (Label member : members[root])
      for (auto const& [other, length] : neighbours[member]) {
        Label const r = find(other);
        if (r != root && !removed[r]) by_region[r] += length;
      }
    Label best = 0;
    index_t best_length = 0;
    for (auto const& [r, length] : by_region)
      if (length > best_length) best = r, best_length = length;  // ties: the smaller label (map order)
    if (best == 0) {
      removed[root] = 1;
      continue;
    }
    parent[root] = best;
    merged_area[best] += merged_area[root];
    members[best].insert(members[best].end(), members[root].begin(), members[root].end());
    members[root].clear();
  }
  // Regions left, numbered by their first pixel.
  std::vector<index_t> region_first(count + 1, -1);
  for (std::size_t l = 1; l <= count; ++l) {
    if (area[l] == 0) continue;
    Label const r = find(Label(l));
    if (removed[r]) continue;
    if (region_first[r] < 0 || first[l] < region_first[r]) region_first[r] = first[l];
  }
  std::vector<Label> roots;
  for (std::size_t r = 1; r <= count; ++r)
    if (region_first[r] >= 0) roots.push_back(Label(r));
  std::sort(roots.begin(), roots.end(), [&](Label a, Label b) { return region_first[a] < region_first[b]; });
  std::vector<Label> root_id(count + 1, 0);
  for (std::size_t i = 0; i < roots.size(); ++i) root_id[roots[i]] = Label(i + 1);
  std::vector<Label> new_id(count + 1, 0);
  for (std::size_t l = 1; l <= count; ++l) {
    if (area[l] == 0) continue;
    Label const r = find(Label(l));
    new_id[l] = removed[r] ? 0 : root_id[r];
  }
  merged_count = index_t(roots.size());
  return new_id;
}

}  // namespace gigaseg::detail
