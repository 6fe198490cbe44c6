#include "apps/gigaseg/label_output.hpp"

#include "apps/gigaseg/cli.hpp"

#include "gigaseg/core/error.hpp"
#include "gigaseg/core/io/atomic_file.hpp"
#include "gigaseg/core/io/ordered_chunks.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <limits>
#include <string>

namespace gigaseg::cli {

void check_label_output(std::string const& path) {
  ImageFormat const format = format_for_extension(path);  // throws for an unknown extension
  (void)format;
  AtomicOutput check(path, is_ome_zarr_name(path));  // a missing folder fails here, before any work
}

void write_label_image(std::string const& path, HostImage<Label> const& labels, index_t components) {
  ImageFormat const format = format_for_extension(path);
  if (format == ImageFormat::tiff || format == ImageFormat::zarr) {
    write_image(path, labels);
    return;
  }
  GIGASEG_REQUIRE(components <= index_t(std::numeric_limits<std::uint16_t>::max()), ErrorKind::input, path,
                  std::to_string(components) + " components do not fit a 16-bit image; write a .tif");
  // Narrowed on every host thread: on one, the copy and the new image's page faults took longer
  // than OpenCV's whole PNG write of the same labels at 4096 x 4096.
  HostImage<std::uint16_t> narrow("gigaseg::cli::labels16", labels.width(), labels.height());
  index_t const width = labels.width();
  Kokkos::parallel_for(
      "gigaseg::cli::narrow_labels",
      Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace, Kokkos::IndexType<index_t>>(0, labels.height()),
      [&](index_t y) {
        Label const* in = labels.row(y);
        std::uint16_t* out = narrow.row(y);
        for (index_t x = 0; x < width; ++x) out[x] = std::uint16_t(in[x]);
      });
  Kokkos::DefaultHostExecutionSpace().fence();
  write_image(path, narrow);
}

namespace {
// The CSV's rows of `regions`, after its header line when `header`. Rows are formatted in pieces of
// 16384 on the writer threads (a slide has hundreds of thousands of regions, and printf-formatting
// them on one thread takes longer than labelling them on a GPU).
std::string stats_csv(std::vector<RegionStats> const& regions, bool header) {
  std::string csv = header ? "label,area,x0,y0,x1,y1,cx,cy,perimeter,mean_intensity\n" : "";
  csv.reserve(csv.size() + regions.size() * 64);
  std::size_t const piece = 16384;
  detail::encode_in_order(
      (regions.size() + piece - 1) / piece, io_threads(),
      [&](std::size_t i, std::vector<unsigned char>& bytes) {
        char line[256];
        std::size_t const end = std::min(regions.size(), (i + 1) * piece);
        bytes.reserve(piece * 64);
        for (std::size_t k = i * piece; k < end; ++k) {
          RegionStats const& r = regions[k];
          int const n = std::snprintf(line, sizeof line, "%u,%lld,%lld,%lld,%lld,%lld,%.4f,%.4f,%lld,%.4f\n", r.label,
                                      (long long)r.area, (long long)r.x0, (long long)r.y0, (long long)r.x1,
                                      (long long)r.y1, r.cx, r.cy, (long long)r.perimeter, r.mean_intensity);
          bytes.insert(bytes.end(), line, line + n);
        }
      },
      [&](std::size_t, std::vector<unsigned char>& bytes) { csv.append(bytes.begin(), bytes.end()); });
  return csv;
}
}  // namespace

void write_stats_csv(std::string const& path, std::vector<RegionStats> const& regions) {
  write_text_file(path, stats_csv(regions, true));
}

void write_stats_csv(ProcessGroup const* group, std::string const& path, std::vector<RegionStats> const& regions) {
  std::string rows;  // formatted before the ranks meet in the file, all or none of them
  detail::collectively(group, [&] { rows = stats_csv(regions, detail::group_rank(group) == 0); });
  detail::write_text_over_ranks(group, path, rows);
}

void add_geojson_format_options(CLI::App& app, GeoJsonOptions& options) {
  app.add_option("--simplify", options.simplify,
                 "with --geojson: Douglas-Peucker tolerance of the outlines, pixels; default 0 (exact and valid)")
      ->check(non_negative_number());
  app.add_option_function<std::string>(
         "--geojson-properties", [&options](std::string const& layout) { options.flat = layout == "flat"; },
         "with --geojson: qupath (default: name, label and the statistics as QuPath's measurements) or flat "
         "(every statistic a property of its own: columns in GDAL and QGIS)")
      ->check(CLI::IsMember({"qupath", "flat"}));
}

void add_geojson_options(CLI::App& app, std::string& geojson, GeoJsonOptions& options) {
  app.add_option("--geojson", geojson,
                 "GeoJSON of the regions' outlines (QuPath's object import): one polygon feature a region, in pixel "
                 "coordinates, its label and statistics as properties");
  add_geojson_format_options(app, options);
}

namespace {

// A GeoJSON FeatureCollection streamed into the output's temporary file (a slide's outlines are
// gigabytes of text): features are added in label order, formatted in pieces of 4096 regions on
// the writer threads, the coordinates with std::to_chars; commit() closes the collection and
// renames the file over `path`.
class GeoJsonFile {
 public:
  GeoJsonFile(std::string const& path, bool flat) : path_(path), output_(path), flat_(flat) {
    file_ = std::fopen(output_.temp_path().c_str(), "wb");
    if (file_ == nullptr) throw_write_failure(path_, "cannot create", errno);
    put("{\"type\":\"FeatureCollection\",\"features\":[");
  }
  ~GeoJsonFile() {
    if (file_ != nullptr) std::fclose(file_);
  }
  GeoJsonFile(GeoJsonFile const&) = delete;
  GeoJsonFile& operator=(GeoJsonFile const&) = delete;

  // The features of labels first + 1 .. last (outlines and regions indexed by label - 1), their y
  // coordinates moved down by dy.
  void add(std::vector<RegionOutline> const& outlines, std::vector<RegionStats> const& regions, std::size_t first,
           std::size_t last, std::int64_t dy) {
    std::size_t const piece = 4096;
    detail::encode_in_order((last - first + piece - 1) / piece, io_threads(),
                            [&](std::size_t i, std::vector<unsigned char>& bytes) {
                              std::size_t const begin = first + i * piece,
                                                end = std::min(last, first + (i + 1) * piece);
                              std::string text;
                              for (std::size_t k = begin; k < end; ++k)
                                if (!outlines[k].polygons.empty()) {  // a label with no pixels has none
                                  if (!text.empty()) text += ",\n";
                                  append_feature(text, outlines[k], regions[k], dy, flat_);
                                }
                              bytes.assign(text.begin(), text.end());
                            },
                            [&](std::size_t, std::vector<unsigned char>& bytes) {
                              if (bytes.empty()) return;
                              put(first_ ? "\n" : ",\n");
                              first_ = false;
                              errno = 0;
                              if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size())
                                throw_write_failure(path_, "cannot write", errno);
                              start_writeback(file_, bytes.size());
                            });
  }

  void commit() {
    put("\n]}\n");
    errno = 0;
    int const flushed = std::fflush(file_);
    int const error_number = errno;
    int const closed = std::fclose(file_);
    file_ = nullptr;
    if (flushed != 0 || closed != 0)
      throw_write_failure(path_, "cannot write", error_number != 0 ? error_number : errno);
    output_.commit();
  }

 private:
  void put(char const* text) {
    errno = 0;
    if (std::fputs(text, file_) < 0) throw_write_failure(path_, "cannot write", errno);
  }

  // A feature: no "id" (QuPath takes a feature's id as the object's UUID and refuses other ids;
  // importing two files with made-up UUIDs into one image would make them clash), the label as
  // "name" (the object's name in QuPath) and "label"; the statistics nested as QuPath's
  // "measurements", or (flat) each a property of its own.
  static void append_feature(std::string& text, RegionOutline const& outline, RegionStats const& r, std::int64_t dy,
                             bool flat) {
    char number[32];
    auto put_number = [&](std::int64_t v) {
      auto const done = std::to_chars(number, number + sizeof number, v);
      text.append(number, done.ptr);
    };
    bool const multi = outline.polygons.size() > 1;
    text += multi ? "{\"type\":\"Feature\",\"geometry\":{\"type\":\"MultiPolygon\",\"coordinates\":["
                  : "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Polygon\",\"coordinates\":";
    for (std::size_t p = 0; p < outline.polygons.size(); ++p) {
      text += p > 0 ? ",[" : "[";
      for (std::size_t q = 0; q < outline.polygons[p].rings.size(); ++q) {
        OutlineRing const& ring = outline.polygons[p].rings[q];
        text += q > 0 ? ",[" : "[";
        for (std::size_t v = 0; v < ring.size(); ++v) {
          text += v > 0 ? ",[" : "[";
          put_number(ring.xy[2 * v]);
          text += ',';
          put_number(ring.xy[2 * v + 1] + dy);
          text += ']';
        }
        text += ']';
      }
      text += ']';
    }
    if (multi) text += ']';
    char properties[640];
    int const n =
        flat ? std::snprintf(properties, sizeof properties,
                             "},\"properties\":{\"objectType\":\"detection\",\"name\":\"%u\",\"label\":%u,"
                             "\"area\":%lld,\"x0\":%lld,\"y0\":%lld,\"x1\":%lld,\"y1\":%lld,\"cx\":%.4f,\"cy\":%.4f,"
                             "\"perimeter\":%lld,\"mean_intensity\":%.4f}}",
                             r.label, r.label, (long long)r.area, (long long)r.x0, (long long)r.y0, (long long)r.x1,
                             (long long)r.y1, r.cx, r.cy, (long long)r.perimeter, r.mean_intensity)
             : std::snprintf(properties, sizeof properties,
                             "},\"properties\":{\"objectType\":\"detection\",\"name\":\"%u\",\"label\":%u,"
                             "\"measurements\":{\"label\":%u,\"area\":%lld,\"x0\":%lld,\"y0\":%lld,\"x1\":%lld,"
                             "\"y1\":%lld,\"cx\":%.4f,\"cy\":%.4f,\"perimeter\":%lld,\"mean_intensity\":%.4f}}}",
                             r.label, r.label, r.label, (long long)r.area, (long long)r.x0, (long long)r.y0,
                             (long long)r.x1, (long long)r.y1, r.cx, r.cy, (long long)r.perimeter, r.mean_intensity);
    text.append(properties, std::size_t(n));
  }

  std::string path_;
  AtomicOutput output_;
  bool flat_ = false;
  std::FILE* file_ = nullptr;
  bool first_ = true;
};

}  // namespace

void write_geojson(std::string const& path, HostImage<Label> const& labels, std::vector<RegionStats> const& regions,
                   GeoJsonOptions const& options) {
  OutlineParams params;
  params.simplify = options.simplify;
  std::vector<RegionOutline> const outlines = trace_outlines(labels, index_t(regions.size()), params);
  GeoJsonFile file(path, options.flat);
  file.add(outlines, regions, 0, regions.size(), 0);
  file.commit();
}

// Labels are numbered by their first pixel in raster order, so a region's top row never comes
// before the one of a region with a smaller label: the regions whose top row lies in a band of
// `step` rows are a run of labels, and all of them lie within `band` = step + the tallest region's
// height - 1 rows from the band's top. Each band of full rows is read and traced, and its run of
// features written; the features come out in label order, as from the whole image.
void write_geojson_tiled(std::string const& path, std::string const& labels_path,
                         std::vector<RegionStats> const& regions, GeoJsonOptions const& options,
                         std::size_t memory_bytes) {
  OutlineParams params;
  params.simplify = options.simplify;
  ImageShape const shape = image_shape(labels_path);
  index_t tallest = 1, last_top = 0;
  for (RegionStats const& r : regions)
    if (r.area > 0) {
      tallest = std::max(tallest, r.y1 - r.y0 + 1);
      GIGASEG_REQUIRE(r.y0 >= last_top, ErrorKind::internal, labels_path, "labels are not numbered in raster order");
      last_top = r.y0;
    }
  // A band's labels (4 bytes a pixel) and the tracer's marks and rings (about as much again).
  std::size_t const budget = memory_bytes > 0 ? memory_bytes : std::size_t(1) << 30;
  index_t const fit = index_t(budget / std::size_t(shape.width * 8)) + 1;
  GIGASEG_REQUIRE(tallest <= fit, ErrorKind::resource, "--geojson",
                  "a region " + std::to_string(tallest) + " rows tall needs more memory for its outline than " +
                      std::to_string(budget >> 20) + " MiB (--memory-limit)");
  index_t const band = std::min(shape.height, std::max(tallest, std::min(fit, 4 * tallest + 1024)));
  index_t const step = band - tallest + 1;
  GeoJsonFile file(path, options.flat);
  std::size_t next = 0;
  for (index_t y0 = 0; next < regions.size() && y0 < shape.height; y0 += step) {
    std::size_t end = next;
    while (end < regions.size() && (regions[end].area == 0 || regions[end].y0 < y0 + step)) ++end;
    if (end == next) continue;
    AnyHostImage pixels = read_image_region(labels_path, Region{0, y0, shape.width, std::min(band, shape.height - y0)});
    auto* labels = std::get_if<HostImage<Label>>(&pixels);
    GIGASEG_REQUIRE(labels != nullptr, ErrorKind::input, labels_path, "outlines are traced from 32-bit labels");
    // The band's run of labels next + 1 .. end renumbered 1 .. end - next, the others 0, so that
    // tracing keeps arrays of the run's length, not of every region's.
    Label const low = Label(next), high = Label(end);
    Kokkos::parallel_for("gigaseg::cli::geojson_band",
                         Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, labels->height()), [&](index_t y) {
                           Label* row = labels->row(y);
                           for (index_t x = 0; x < labels->width(); ++x)
                             row[x] = row[x] > low && row[x] <= high ? row[x] - low : 0;
                         });
    std::vector<RegionOutline> outlines = trace_outlines(*labels, index_t(end - next), params);
    for (RegionOutline& outline : outlines) outline.label += low;
    std::vector<RegionStats> const run(regions.begin() + std::ptrdiff_t(next), regions.begin() + std::ptrdiff_t(end));
    file.add(outlines, run, 0, run.size(), y0);
    next = end;
  }
  file.commit();
}

// The overlay is built row by row on the host threads: at 20000 x 20000 one thread takes seconds.
void write_overlay(std::string const& path, AnyHostImage const& input, HostImage<Label> const& labels) {
  auto const* rgb = std::get_if<HostImage<Rgb8>>(&input);
  auto const* gray = std::get_if<HostImage<std::uint8_t>>(&input);
  GIGASEG_REQUIRE(rgb != nullptr || gray != nullptr, ErrorKind::input, path,
                  "an overlay needs an 8-bit gray or RGB input");
  HostImage<Rgb8> overlay("gigaseg::cli::overlay", labels.width(), labels.height());
  index_t const w = labels.width(), h = labels.height();
  using Host = Kokkos::DefaultHostExecutionSpace;
  Kokkos::parallel_for("gigaseg::cli::overlay", Kokkos::RangePolicy<Host>(0, h), [&](index_t y) {
    for (index_t x = 0; x < w; ++x) {
      Label const l = labels(y, x);
      bool const boundary = l != 0 && ((y == 0 || labels(y - 1, x) != l) || (y + 1 == h || labels(y + 1, x) != l) ||
                                       (x == 0 || labels(y, x - 1) != l) || (x + 1 == w || labels(y, x + 1) != l));
      if (!boundary) {
        std::uint8_t const v = gray != nullptr ? (*gray)(y, x) : 0;
        overlay(y, x) = rgb != nullptr ? (*rgb)(y, x) : Rgb8{v, v, v};
        continue;
      }
      // A saturated colour per label from a hash, so neighbours differ.
      std::uint32_t s = l * 2654435761u;
      s ^= s >> 15;
      overlay(y, x) = Rgb8{std::uint8_t(64 + (s & 0xbf)), std::uint8_t(64 + ((s >> 8) & 0xbf)),
                           std::uint8_t(64 + ((s >> 16) & 0xbf))};
    }
  });
  Host().fence();
  write_image(path, overlay);
}

}  // namespace gigaseg::cli
