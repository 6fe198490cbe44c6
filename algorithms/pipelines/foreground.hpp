#pragma once
// Which side of a threshold the pipelines segment (algorithms/pipelines/cells.hpp, nuclei.hpp,
// kmeans_segment.hpp).

namespace gigaseg {

// Which side of a threshold is the object: `bright` (pixel > T, fluorescence such as DAPI), `dark`
// (pixel <= T, brightfield stains such as hematoxylin) or `automatic`: the side with fewer pixels,
// since cells and nuclei cover less of a slide than what surrounds them (an assumption stated in
// docs/cli.md; pass the side explicitly when it does not hold).
enum class Foreground { automatic, bright, dark };

}  // namespace gigaseg
