#!/usr/bin/env python3
"""Generates algorithms/detail/median_networks.hpp: min/max networks for the 3x3 and 5x5 median.

A window's columns are sorted first (sort3/sort5); the sorted columns are shared by neighbouring
outputs. The median of the window is then selected from its sorted columns by a network built
here from Batcher sorts (padded to powers of two with +infinity), with every comparator that
touches only padding removed and every comparator whose outputs cannot reach the median pruned
(or halved to a single min or max). Each network is checked exhaustively
with the 0-1 principle before it is written. Run: python3 scripts/gen-median-networks.py
"""
import itertools
import pathlib
import sys


def batcher_merge(lo, n, r=1):
    """Comparators of Batcher's odd-even merge of the sorted halves of wires lo..lo+n-1."""
    step = r * 2
    if step < n:
        yield from batcher_merge(lo, n, step)
        yield from batcher_merge(lo + r, n, step)
        for i in range(lo + r, lo + n - r, step):
            yield (i, i + r)
    else:
        yield (lo, lo + r)


def batcher_sort(lo, n):
    if n > 1:
        m = n // 2
        yield from batcher_sort(lo, m)
        yield from batcher_sort(lo + m, m)
        yield from batcher_merge(lo, n)


def simplify(n_real, n_wires, comparators, targets):
    """Drops comparators on +infinity padding (wires >= n_real), relabelling wires where a
    comparator only moves a value, then prunes backwards to what `targets` need. Returns a list of
    (kind, a, b) on the real registers: 'cas' (a = min, b = max), 'min' (a = min(a, b)),
    'max' (b = max(a, b)), and the registers that end up holding each target."""
    reg = list(range(n_wires))          # logical wire -> register
    inf = [w >= n_real for w in range(n_wires)]
    ops = []
    for i, j in comparators:
        if inf[j]:
            continue
        if inf[i]:                      # min goes to i: the value moves, infinity goes to j
            reg[i], reg[j] = reg[j], reg[i]
            inf[i], inf[j] = False, True
            continue
        ops.append((reg[i], reg[j]))
    out = [reg[t] for t in targets]
    needed = set(out)
    kept = []
    for a, b in reversed(ops):
        na, nb = a in needed, b in needed
        if na and nb:
            kept.append(('cas', a, b))
        elif na:
            kept.append(('min', a, b))
        elif nb:
            kept.append(('max', a, b))
        else:
            continue
        needed.update((a, b))
    kept.reverse()
    return kept, out


def run(ops, values):
    v = list(values)
    for kind, a, b in ops:
        lo, hi = min(v[a], v[b]), max(v[a], v[b])
        if kind in ('cas', 'min'):
            v[a] = lo
        if kind in ('cas', 'max'):
            v[b] = hi
    return v


def column_sort(k):
    n = 1 << (k - 1).bit_length()
    ops, out = simplify(k, n, list(batcher_sort(0, n)), list(range(k)))
    assert out == list(range(k)), out  # sorted in place
    for bits in itertools.product((0, 1), repeat=k):
        assert run(ops, bits)[:k] == sorted(bits)
    return ops


def median_of_sorted_columns(k):
    """k columns of k sorted values (register c*k + i = rank i of column c).

    Sorting each rank row across the columns as well leaves a matrix sorted both ways. An entry at
    row r, column c then has at least (r+1)(c+1)-1 entries below it and (k-r)(k-c)-1 above it, so
    only the entries with both counts at most half the window can be the median; the others are
    known to lie below (or above) it. The median is then the middle candidate after discounting
    those known to lie below: a Batcher sort of the candidates, pruned to that one output."""
    n = k * k
    half = n // 2
    p = 1 << (k - 1).bit_length()
    comparators = []
    extra = n                                   # registers >= n are +infinity padding
    for r in range(k):
        wires = [c * k + r for c in range(k)] + list(range(extra, extra + p - k))
        extra += p - k
        comparators += [(wires[i], wires[j]) for i, j in batcher_sort(0, p)]
    candidates = [c * k + r for r in range(k) for c in range(k)
                  if (r + 1) * (c + 1) <= half + 1 and (k - r) * (k - c) <= half + 1]
    below = sum(1 for r in range(k) for c in range(k) if (k - r) * (k - c) > half + 1)
    m = len(candidates)
    q = 1 << (m - 1).bit_length()
    wires = candidates + list(range(extra, extra + q - m))
    extra += q - m
    comparators += [(wires[i], wires[j]) for i, j in batcher_sort(0, q)]
    ops, out = simplify(n, extra, comparators, [wires[half - below]])
    # 0-1 principle with sorted columns: column c holds zeros(a_c) then ones.
    for counts in itertools.product(range(k + 1), repeat=k):
        values = [0] * n
        for c, zeros in enumerate(counts):
            for i in range(k):
                values[c * k + i] = 0 if i < zeros else 1
        assert run(ops, values + [1] * (extra - n))[out[0]] == sorted(values)[half], counts
    assert all(a < n and b < n for _, a, b in ops)
    return ops, out[0]


def emit(name, ops, registers, result=None):
    lines = [f"template <class MinMax, class V>",
             f"KOKKOS_FORCEINLINE_FUNCTION {'V' if result is not None else 'void'} {name}(V* v) {{"]
    lines.append(f"  // {len(ops)} operations, {sum(2 if k == 'cas' else 1 for k, _, _ in ops)} min/max")
    for kind, a, b in ops:
        if kind == 'cas':
            lines.append(f"  MinMax::sort(v[{a}], v[{b}]);")
        elif kind == 'min':
            lines.append(f"  v[{a}] = MinMax::min(v[{a}], v[{b}]);")
        else:
            lines.append(f"  v[{b}] = MinMax::max(v[{a}], v[{b}]);")
    if result is not None:
        lines.append(f"  return v[{result}];")
    lines.append("}")
    return "\n".join(lines)


def main():
    parts = []
    for k in (3, 5):
        parts.append(emit(f"sort{k}", column_sort(k), k))
    for k in (3, 5):
        ops, result = median_of_sorted_columns(k)
        parts.append(f"// v[c * {k} + i] = rank i of sorted column c; returns the median of the {k * k} values.\n" +
                     emit(f"median{k * k}_of_sorted_columns", ops, k * k, result))
    header = """#pragma once
// Generated by scripts/gen-median-networks.py (min/max networks checked there exhaustively with the
// 0-1 principle). Do not edit by hand.
//
// MinMax::min(a, b), MinMax::max(a, b) and MinMax::sort(a, b) (a = min, b = max) define the value
// type's order: plain scalars, packed 16-bit lanes on CUDA.
#include <Kokkos_Core.hpp>

namespace gigaseg::detail::network {

// Plain scalars' order (host loops, portable kernels).
struct ScalarMinMax {
  template <class V>
  static KOKKOS_FORCEINLINE_FUNCTION V min(V a, V b) { return b < a ? b : a; }
  template <class V>
  static KOKKOS_FORCEINLINE_FUNCTION V max(V a, V b) { return a < b ? b : a; }
  template <class V>
  static KOKKOS_FORCEINLINE_FUNCTION void sort(V& a, V& b) {
    V const lo = min(a, b);
    b = max(a, b);
    a = lo;
  }
};

"""
    text = header + "\n\n".join(parts) + "\n\n}  // namespace gigaseg::detail::network\n"
    path = pathlib.Path(__file__).resolve().parent.parent / "algorithms/detail/median_networks.hpp"
    path.write_text(text)
    print(path, file=sys.stderr)


if __name__ == "__main__":
    main()
