#pragma once
// Outputs shared by the commands that produce labels (label, segment): the label image in the
// format the extension asks for, the statistics CSV, and the boundary overlay.
#include "gigaseg/algorithms/outlines.hpp"
#include "gigaseg/algorithms/region_stats.hpp"
#include "gigaseg/core/io/image_file.hpp"

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace gigaseg::cli {

// Fails (usage error naming OUT) unless the extension is .tif/.tiff (32-bit labels) or .png/.pgm
// (16-bit labels, if they fit); checked before any work.
void check_label_output(std::string const& path);

// 32-bit TIFF, or 16-bit PNG/PGM when the labels fit in 16 bits (else an input error saying so).
void write_label_image(std::string const& path, HostImage<Label> const& labels, index_t components);

// label,area,x0,y0,x1,y1,cx,cy,perimeter,mean_intensity (docs/cli.md), one row a component.
void write_stats_csv(std::string const& path, std::vector<RegionStats> const& regions);

// The regions' outlines (algorithms/outlines.hpp, traced with `connectivity` and the Douglas-Peucker
// tolerance `simplify`) as a GeoJSON FeatureCollection (docs/cli.md, "GeoJSON"): one feature a
// region, a Polygon (a MultiPolygon for a region of several parts) in pixel coordinates with the
// origin at the image's top left, its statistics as properties; `regions` holds one row a label,
// labels 1..regions.size().
void write_geojson(std::string const& path, HostImage<Label> const& labels, std::vector<RegionStats> const& regions,
                   int connectivity, double simplify);

// --geojson FILE and --simplify TOL on `app`.
void add_geojson_options(CLI::App& app, std::string& geojson, double& simplify);
// Error(usage) naming --geojson when one is asked of an image taken tile by tile: the outlines are
// traced from the labels in memory.
void refuse_tiled_geojson(std::string const& geojson);

// The input as RGB with every boundary pixel (a labelled pixel with a 4-neighbour of another label)
// painted in its label's colour.
void write_overlay(std::string const& path, AnyHostImage const& input, HostImage<Label> const& labels);

}  // namespace gigaseg::cli
