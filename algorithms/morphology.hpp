#pragma once
// Grey-level morphology of 8-bit images: erode, dilate, open, close, gradient with rectangle,
// cross and ellipse structuring elements of any odd size, identical to cv::morphologyEx with
// cv::getStructuringElement(shape, {K, K}) and OpenCV's default border (pixels outside the image take no part: the
// minimum and maximum run over the element's pixels inside the image).
//
// Implementation (detail/morphology_portable.hpp): the element is a list of row spans, applied in
// one tiled team-scratch pass; a rectangle is separable (a row pass, then a column pass), and wide
// rectangles use van Herk/Gil-Werman running minima, whose cost does not grow with K. The tuned
// CUDA path fuses 3x3, 5x5 and 7x7 rectangles into one pass and runs 9..191 as coalesced van Herk
// column and doubling row passes; the tuned OpenMP path runs every element as vectorised row
// loops. Every path gives identical results.
//
// Defined in the library (algorithms/detail/morphology_impl.hpp) for every enabled execution space
// (backends/instantiate/morphology.cpp).
#include "gigaseg/algorithms/morphology_types.hpp"
#include "gigaseg/core/image.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <vector>

namespace gigaseg {

// The path morphology() takes on ExecSpace (tuned: CUDA rectangles 3..191, OpenMP every element
// but rectangles wider than 255; the rest runs portably).
template <class ExecSpace>
Path morphology_path(MorphParams const& params = {});

template <class ExecSpace>
void morphology(ExecSpace const& space, ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& in,
                ImageView<std::uint8_t, typename ExecSpace::memory_space> const& out, MorphParams const& params);

}  // namespace gigaseg
