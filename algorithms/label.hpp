#pragma once
// Connected-component labelling, exact and canonical.
//
// Components of the nonzero pixels under 4- or 8-connectivity, or ("equal value" mode) of
// connected pixels that share the same nonzero value (class maps such as K-means output).
// Numbering is canonical: background 0, components 1..N in the order of their first pixel in a
// row-major scan, which equals skimage.measure.label pixel for pixel, on every backend, path
// and run. Every path is union-find whose root is always the smallest linear index of the
// component, i.e. its first pixel; numbering the roots in index order is then a scan over root
// flags.
//
// Paths (algorithms/path.hpp):
//  - portable: union-find with atomic-min merging (Playne & Hawick 2018; Komura's equivalence for
//    the initial links) in Kokkos, any backend (algorithms/detail/label_portable.hpp, dispatched
//    by algorithms/detail/label_impl.hpp);
//  - tuned on OpenMP: strip-parallel run-based scan, runs merged across strip seams
//    (backends/openmp/label_openmp.cpp);
//  - tuned on CUDA: backends/cuda/label_cuda.cpp.
//
// Linear indices are 64-bit in the API; the union-find arrays use 32-bit entries while the image
// has fewer than 2^32 pixels (a 50000 x 45000 scan has 2.25e9) and 64-bit entries beyond that.
#include "gigaseg/algorithms/label_types.hpp"
#include "gigaseg/core/image.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <vector>

namespace gigaseg {

// labels(y, x) = component number (0 background); returns N, the number of components. Fences
// `space` (returns host data). T: 8-, 16- or 32-bit unsigned.
template <class ExecSpace, class T>
index_t label(ExecSpace const& space, ImageView<T const, typename ExecSpace::memory_space> const& image,
              ImageView<Label, typename ExecSpace::memory_space> const& labels, LabelParams const& params = {});

// A non-const image, the same call.
template <class ExecSpace, class T, if_mutable<T> = 0>
index_t label(ExecSpace const& space, ImageView<T, typename ExecSpace::memory_space> const& image,
              ImageView<Label, typename ExecSpace::memory_space> const& labels, LabelParams const& params = {}) {
  return label(space, ImageView<T const, typename ExecSpace::memory_space>(image), labels, params);
}

// Replaces every label l of `labels` by new_id[l] (new_id[0]: what the background becomes), on
// `space`: the numbering of tiles' or ranks' local labels into an image's, the merging of markers.
// new_id holds an entry for every label present. Fences `space`.
template <class ExecSpace>
void renumber(ExecSpace const& space, ImageView<Label, typename ExecSpace::memory_space> const& labels,
              std::vector<Label> const& new_id);

// The raster index (y * width + x) of each label's first pixel in raster order, for the labels
// 0..count: entry l for label l; label 0's entry and those of labels absent from `labels` are the
// largest index_t. Labels above count are an Error(input). Fences `space` (returns host data).
template <class ExecSpace>
std::vector<index_t> first_pixels(ExecSpace const& space,
                                  ImageView<Label const, typename ExecSpace::memory_space> const& labels,
                                  index_t count);

// The path label() takes on ExecSpace for a requested path.
template <class ExecSpace>
Path label_path(Path requested);

// Defined in the library (algorithms/detail/label_impl.hpp) for every enabled execution space
// and the pixel types above, renumber() for every enabled execution space (backends/instantiate/label.cpp).
}  // namespace gigaseg
