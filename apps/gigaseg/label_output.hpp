#pragma once
// Outputs shared by the commands that produce labels (label, segment): the label image in the
// format the extension asks for, the statistics CSV, and the boundary overlay.
#include "gigaseg/algorithms/outlines.hpp"
#include "gigaseg/algorithms/region_stats.hpp"
#include "gigaseg/core/io/image_file.hpp"
#include "gigaseg/engine/process_group.hpp"

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace gigaseg::cli {

// Fails (usage error naming OUT) unless the extension is .tif/.tiff (32-bit labels) or .png/.pgm
// (16-bit labels, if they fit); checked before any work.
void check_label_output(std::string const& path);

// 32-bit TIFF or OME-Zarr, or 16-bit PNG/PGM when the labels fit in 16 bits (else an input error
// saying so).
void write_label_image(std::string const& path, HostImage<Label> const& labels, index_t components);

// label,area,x0,y0,x1,y1,cx,cy,perimeter,mean_intensity (docs/cli.md), one row a component.
void write_stats_csv(std::string const& path, std::vector<RegionStats> const& regions);
// Collective: the same file from the regions of every rank of `group` (each rank's, in label order,
// following the previous rank's: as TiledOptions::spread_regions leaves them, or all on rank 0),
// each rank writing its rows (detail::write_text_over_ranks). Without a group, write_stats_csv.
void write_stats_csv(ProcessGroup const* group, std::string const& path, std::vector<RegionStats> const& regions);

// How GeoJSON outlines are written: the Douglas-Peucker tolerance (0: exact, valid outlines) and
// where the statistics go: QuPath's layout (`measurements`, an object of the statistics, beside
// `name`, the label) or flat (every statistic a property of its own, GDAL's and QGIS's columns).
struct GeoJsonOptions {
  double simplify = 0;
  bool flat = false;
};

// The regions' outlines (algorithms/outlines.hpp) as a GeoJSON FeatureCollection (docs/cli.md,
// "GeoJSON"): one feature a region, a Polygon (a MultiPolygon for a region of several 4-connected
// pieces) in pixel coordinates with the origin at the image's top left, its label and statistics as
// properties; `regions` holds one row a label, labels 1..regions.size().
void write_geojson(std::string const& path, HostImage<Label> const& labels, std::vector<RegionStats> const& regions,
                   GeoJsonOptions const& options);

// --geojson FILE, --simplify TOL and --geojson-properties qupath|flat on `app`; the last two alone
// (add_geojson_format_options) where --geojson is a flag, as batch takes it.
void add_geojson_options(CLI::App& app, std::string& geojson, GeoJsonOptions& options);
void add_geojson_format_options(CLI::App& app, GeoJsonOptions& options);
// The same file from the label image at labels_path (written tile by tile), read in bands of full
// rows that hold whole regions, within memory_bytes (0: 1 GiB): the bytes write_geojson writes. A region too
// tall for a band in memory_bytes is an Error(resource) naming --geojson.
void write_geojson_tiled(std::string const& path, std::string const& labels_path,
                         std::vector<RegionStats> const& regions, GeoJsonOptions const& options,
                         std::size_t memory_bytes);

// The input as RGB with every boundary pixel (a labelled pixel with a 4-neighbour of another label)
// painted in its label's colour.
void write_overlay(std::string const& path, AnyHostImage const& input, HostImage<Label> const& labels);

}  // namespace gigaseg::cli
