// OME-TIFF outputs (image_file.hpp, is_ome_tiff_name): a tiled TIFF whose first directory holds the
// full-resolution image and, as its ImageDescription, the OME-XML that says the image's size, pixel
// type and physical pixel size; its reduced levels, each half the size of the one before (rounded
// up) until the largest side is at most 512, follow as SubIFDs, in tiles of 512 x 512, as QuPath,
// napari (tifffile), Bio-Formats and OMERO read pyramids.
//
// A reduced level's pixel stands for a 2 x 2 block of the level before it (the pixels of it that
// exist, at the right and bottom edges):
//   - labels (32-bit): the value most of them have, the first in raster order on a tie (a mean of
//     labels would be a label no region has);
//   - masks, gray and colour images, distances: the mean, rounded to the nearest integer for
//     integer samples.
//
// How it is made: the full-resolution image is first written as a tiled TIFF (by write_image, or
// tile by tile by TiffTileWriter); each reduced level is made from the one before, a source tile at
// a time, into an uncompressed scratch TIFF beside the output; the OME-TIFF is then assembled under
// the output's temporary name: level 0's tiles copied as they are stored, the reduced levels'
// tiles compressed as the write options say. The scratch files are temporaries of the output
// (atomic_file.hpp): removed when done, or by a later run after a crash.
#include "gigaseg/core/error.hpp"
#include "gigaseg/core/io/atomic_file.hpp"
#include "gigaseg/core/io/image_file.hpp"
#include "gigaseg/core/io/ordered_chunks.hpp"
#include "gigaseg/core/io/pyramid.hpp"
#include "gigaseg/core/io/tiff_internal.hpp"
#include "gigaseg/core/io/tile_writer.hpp"
#include "gigaseg/gigaseg_config.hpp"

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <tiffio.h>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include <sys/stat.h>

namespace gigaseg {

bool is_ome_tiff_name(std::string const& path) {
  std::string lower = path;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  auto const ends = [&](char const* suffix) {
    std::size_t const n = std::strlen(suffix);
    return lower.size() > n && lower.compare(lower.size() - n, n, suffix) == 0;
  };
  return ends(".ome.tif") || ends(".ome.tiff");
}

namespace detail {
namespace {

std::string xml_escaped(std::string const& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

char const* ome_type(PixelType type) {
  switch (type) {
    case PixelType::u8:
    case PixelType::rgb8: return "uint8";
    case PixelType::u16: return "uint16";
    case PixelType::u32: return "uint32";
    case PixelType::f32: return "float";
  }
  return "uint8";
}

// The OME-XML of a single-plane image (one Image, one Pixels, one TiffData for IFD 0). The
// physical size is in microns, OME's default unit, where it is known.
std::string ome_xml(std::string const& path, index_t w, index_t h, PixelType type, WriteOptions const& options) {
  std::string name = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
  for (char const* suffix : {".ome.tiff", ".ome.tif", ".OME.TIFF", ".OME.TIF"})
    if (name.size() > std::strlen(suffix) &&
        name.compare(name.size() - std::strlen(suffix), std::string::npos, suffix) == 0)
      name.resize(name.size() - std::strlen(suffix));
  bool const rgb = type == PixelType::rgb8;
  std::ostringstream xml;
  xml.precision(17);
  xml << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<OME xmlns=\"http://www.openmicroscopy.org/Schemas/OME/2016-06\" "
         "xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" "
         "xsi:schemaLocation=\"http://www.openmicroscopy.org/Schemas/OME/2016-06 "
         "http://www.openmicroscopy.org/Schemas/OME/2016-06/ome.xsd\" Creator=\"gigaseg "
      << GIGASEG_VERSION_STRING << "\">"
      << "<Image ID=\"Image:0\" Name=\"" << xml_escaped(name) << "\">"
      << "<Pixels ID=\"Pixels:0\" DimensionOrder=\"XYCZT\" Type=\"" << ome_type(type) << "\" SizeX=\"" << w
      << "\" SizeY=\"" << h << "\" SizeC=\"" << (rgb ? 3 : 1) << "\" SizeZ=\"1\" SizeT=\"1\" BigEndian=\"false\""
      << " Interleaved=\"" << (rgb ? "true" : "false") << "\"";
  if (options.microns_per_pixel_x > 0 && options.microns_per_pixel_y > 0)
    xml << " PhysicalSizeX=\"" << options.microns_per_pixel_x << "\" PhysicalSizeY=\"" << options.microns_per_pixel_y
        << "\"";
  xml << "><Channel ID=\"Channel:0:0\" SamplesPerPixel=\"" << (rgb ? 3 : 1) << "\"/>"
      << "<TiffData IFD=\"0\" PlaneCount=\"1\"/></Pixels></Image></OME>";
  return xml.str();
}

struct Level {
  std::string path;
  index_t width = 0, height = 0;
  index_t tile_width = 0, tile_height = 0;
};

// Writes the level after `from` (half its size, rounded up) into the uncompressed tiled TIFF `to`,
// reading `from` a source tile at a time; the rows made wait in a band until whole rows of
// output tiles are ready.
template <class T>
Level reduce_level(Level const& from, std::string const& to, std::string const& path, PixelType type) {
  Level next{to, (from.width + 1) / 2, (from.height + 1) / 2, reduced_tile, reduced_tile};
  TiffHandlerScope handlers;
  TiffHandle tif(open_tiff_for_writing(
      to, needs_bigtiff(next.width, next.height, bytes_per_pixel(type), reduced_tile, reduced_tile) ? "w8" : "w"));
  if (!tif) fail_write(path, "cannot create a scratch file for the reduced levels");
  int const samples = type == PixelType::rgb8 ? 3 : 1;
  TIFFSetField(tif.get(), TIFFTAG_IMAGEWIDTH, std::uint32_t(next.width));
  TIFFSetField(tif.get(), TIFFTAG_IMAGELENGTH, std::uint32_t(next.height));
  TIFFSetField(tif.get(), TIFFTAG_SAMPLESPERPIXEL, samples);
  TIFFSetField(tif.get(), TIFFTAG_BITSPERSAMPLE, int(sizeof(T)) * 8 / samples);
  TIFFSetField(tif.get(), TIFFTAG_SAMPLEFORMAT, type == PixelType::f32 ? SAMPLEFORMAT_IEEEFP : SAMPLEFORMAT_UINT);
  TIFFSetField(tif.get(), TIFFTAG_PHOTOMETRIC, samples == 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK);
  TIFFSetField(tif.get(), TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
  TIFFSetField(tif.get(), TIFFTAG_COMPRESSION, COMPRESSION_NONE);
  TIFFSetField(tif.get(), TIFFTAG_TILEWIDTH, std::uint32_t(reduced_tile));
  TIFFSetField(tif.get(), TIFFTAG_TILELENGTH, std::uint32_t(reduced_tile));

  // The band: output rows [band_top, band_top + band.size() / next.width) of the full width.
  std::vector<T> band;
  index_t band_top = 0;
  std::vector<T> tile(std::size_t(reduced_tile * reduced_tile));
  index_t const out_tiles_across = (next.width + reduced_tile - 1) / reduced_tile;
  // Writes the output tile rows that are complete (all of them when `last`).
  auto flush = [&](bool last) {
    index_t rows = index_t(band.size()) / next.width;
    while (rows >= reduced_tile || (last && rows > 0)) {
      index_t const th = std::min(reduced_tile, rows);
      for (index_t c = 0; c < out_tiles_across; ++c) {
        std::fill(tile.begin(), tile.end(), T{});
        index_t const x0 = c * reduced_tile, tw = std::min(reduced_tile, next.width - x0);
        for (index_t y = 0; y < th; ++y)
          std::copy_n(band.data() + y * next.width + x0, tw, tile.data() + y * reduced_tile);
        errno = 0;
        if (TIFFWriteEncodedTile(tif.get(),
                                 TIFFComputeTile(tif.get(), std::uint32_t(x0), std::uint32_t(band_top), 0, 0),
                                 tile.data(), tmsize_t(tile.size() * sizeof(T))) < 0)
          fail_write(path, "cannot write a reduced level's scratch tile");
      }
      band.erase(band.begin(), band.begin() + std::ptrdiff_t(th * next.width));
      band_top += th;
      rows -= th;
    }
  };
  for (index_t sy = 0; sy < from.height; sy += from.tile_height) {
    index_t const sh = std::min(from.tile_height, from.height - sy);
    index_t const out_rows = (sh + 1) / 2;
    std::size_t const base = band.size();
    band.resize(base + std::size_t(out_rows * next.width));
    for (index_t sx = 0; sx < from.width; sx += from.tile_width) {
      index_t const sw = std::min(from.tile_width, from.width - sx);
      AnyHostImage const source = read_image_region(from.path, Region{sx, sy, sw, sh});
      auto const& pixels = std::get<HostImage<T>>(source);
      T* const out = band.data() + base + std::size_t(sx / 2);
      Kokkos::parallel_for("gigaseg::ome::reduce", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, out_rows),
                           [&](index_t oy) {
                             for (index_t ox = 0; ox < (sw + 1) / 2; ++ox) {
                               T v[4];
                               int n = 0;
                               for (index_t dy = 0; dy < 2 && 2 * oy + dy < sh; ++dy)
                                 for (index_t dx = 0; dx < 2 && 2 * ox + dx < sw; ++dx)
                                   v[n++] = pixels(2 * oy + dy, 2 * ox + dx);
                               out[oy * next.width + ox] = reduce_block(v, n);
                             }
                           });
    }
    flush(false);
  }
  flush(true);
  if (!TIFFWriteDirectory(tif.get())) fail_write(path, "cannot write a reduced level's scratch directory");
  TIFF* raw = tif.release();
  errno = 0;
  TIFFClose(raw);
  return next;
}

// The tags every level of the output carries, as level 0's file has them.
void set_pixel_tags(TIFF* out, TIFF* source, index_t w, index_t h, index_t tw, index_t th, std::uint16_t compression) {
  std::uint16_t bits = 8, samples = 1, format = SAMPLEFORMAT_UINT, photometric = PHOTOMETRIC_MINISBLACK;
  TIFFGetFieldDefaulted(source, TIFFTAG_BITSPERSAMPLE, &bits);
  TIFFGetFieldDefaulted(source, TIFFTAG_SAMPLESPERPIXEL, &samples);
  TIFFGetFieldDefaulted(source, TIFFTAG_SAMPLEFORMAT, &format);
  TIFFGetField(source, TIFFTAG_PHOTOMETRIC, &photometric);
  TIFFSetField(out, TIFFTAG_IMAGEWIDTH, std::uint32_t(w));
  TIFFSetField(out, TIFFTAG_IMAGELENGTH, std::uint32_t(h));
  TIFFSetField(out, TIFFTAG_BITSPERSAMPLE, bits);
  TIFFSetField(out, TIFFTAG_SAMPLESPERPIXEL, samples);
  TIFFSetField(out, TIFFTAG_SAMPLEFORMAT, format);
  TIFFSetField(out, TIFFTAG_PHOTOMETRIC, photometric);
  TIFFSetField(out, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
  TIFFSetField(out, TIFFTAG_TILEWIDTH, std::uint32_t(tw));
  TIFFSetField(out, TIFFTAG_TILELENGTH, std::uint32_t(th));
  TIFFSetField(out, TIFFTAG_COMPRESSION, compression);
  // The reduced levels are encoded with the options level 0 was written with: its predictor too.
  std::uint16_t predictor = PREDICTOR_NONE;
  TIFFGetFieldDefaulted(source, TIFFTAG_PREDICTOR, &predictor);
  if (predictor != PREDICTOR_NONE) TIFFSetField(out, TIFFTAG_PREDICTOR, predictor);
}

template <class T>
void write_pyramid(std::string const& level0, std::string const& temp_out, std::string const& path, PixelType type,
                   WriteOptions const& options) {
  ImageShape const shape = image_shape(level0);
  std::vector<Level> levels{{level0, shape.width, shape.height, shape.block_width, shape.block_height}};
  // Scratch files: temporaries of the output, never committed.
  std::vector<std::unique_ptr<AtomicOutput>> scratch;
  while (std::max(levels.back().width, levels.back().height) > reduced_tile) {
    scratch.push_back(std::make_unique<AtomicOutput>(path));
    levels.push_back(reduce_level<T>(levels.back(), scratch.back()->temp_path(), path, type));
  }

  TiffHandlerScope handlers;
  TiffHandle source(TIFFOpen(level0.c_str(), "r"));
  if (!source) fail_write(path, "cannot open the full-resolution image again");
  struct stat st {};
  bool const big = TIFFIsBigTIFF(source.get()) != 0 ||
                   (::stat(level0.c_str(), &st) == 0 && double(st.st_size) * 4.0 / 3.0 > 3.5e9) ||
                   options.force_bigtiff;
  TiffHandle out(open_tiff_for_writing(temp_out, big ? "w8" : "w"));
  if (!out) fail_write(path, "cannot create");
  std::uint16_t compression = COMPRESSION_NONE;
  TIFFGetFieldDefaulted(source.get(), TIFFTAG_COMPRESSION, &compression);

  // Level 0: the tiles as stored, the OME-XML, and the reduced levels announced as SubIFDs.
  set_pixel_tags(out.get(), source.get(), shape.width, shape.height, shape.block_width, shape.block_height,
                 compression);
  std::string const xml = ome_xml(path, shape.width, shape.height, type, options);
  TIFFSetField(out.get(), TIFFTAG_IMAGEDESCRIPTION, xml.c_str());
  TIFFSetField(out.get(), TIFFTAG_SOFTWARE, "gigaseg " GIGASEG_VERSION_STRING);
  if (options.microns_per_pixel_x > 0 && options.microns_per_pixel_y > 0) {
    TIFFSetField(out.get(), TIFFTAG_RESOLUTIONUNIT, RESUNIT_CENTIMETER);
    TIFFSetField(out.get(), TIFFTAG_XRESOLUTION, float(1e4 / options.microns_per_pixel_x));
    TIFFSetField(out.get(), TIFFTAG_YRESOLUTION, float(1e4 / options.microns_per_pixel_y));
  }
  std::vector<toff_t> subifds(levels.size() - 1, 0);
  if (!subifds.empty()) TIFFSetField(out.get(), TIFFTAG_SUBIFD, std::uint16_t(subifds.size()), subifds.data());
  std::vector<unsigned char> raw;
  for (ttile_t t = 0; t < TIFFNumberOfTiles(source.get()); ++t) {
    std::uint64_t* counts = nullptr;
    if (!TIFFGetField(source.get(), TIFFTAG_TILEBYTECOUNTS, &counts) || counts == nullptr)
      fail_write(path, "the full-resolution image has no tile sizes");
    raw.resize(std::size_t(counts[t]));
    tmsize_t const n = TIFFReadRawTile(source.get(), t, raw.data(), tmsize_t(raw.size()));
    if (n < 0) fail_write(path, with_detail("cannot read back tile " + std::to_string(t)));
    errno = 0;
    if (TIFFWriteRawTile(out.get(), t, raw.data(), n) != n) fail_write(path, "cannot write tile " + std::to_string(t));
  }
  if (!TIFFWriteDirectory(out.get())) fail_write(path, "cannot write TIFF directory");

  // The reduced levels, encoded on io_threads() as the options say, in order.
  for (std::size_t k = 1; k < levels.size(); ++k) {
    Level const& level = levels[k];
    TIFFSetField(out.get(), TIFFTAG_SUBFILETYPE, FILETYPE_REDUCEDIMAGE);
    set_pixel_tags(out.get(), source.get(), level.width, level.height, reduced_tile, reduced_tile, compression);
    TiffTileEncoder const encoder(path, level.width, level.height, type, reduced_tile, reduced_tile, options);
    index_t const across = encoder.tiles_across();
    encode_in_order(
        std::size_t(across * encoder.tiles_down()), io_threads(),
        [&](std::size_t i, std::vector<unsigned char>& bytes) {
          index_t const c = index_t(i) % across, r = index_t(i) / across;
          index_t const x = c * reduced_tile, y = r * reduced_tile;
          encoder.encode(c, r,
                         read_image_region(level.path, Region{x, y, std::min(reduced_tile, level.width - x),
                                                              std::min(reduced_tile, level.height - y)}),
                         bytes);
        },
        [&](std::size_t i, std::vector<unsigned char>& bytes) {
          errno = 0;
          if (TIFFWriteRawTile(out.get(), ttile_t(i), bytes.data(), tmsize_t(bytes.size())) != tmsize_t(bytes.size()))
            fail_write(path, "cannot write a reduced level's tile");
        });
    if (!TIFFWriteDirectory(out.get())) fail_write(path, "cannot write a reduced level's directory");
  }
  TIFF* closing = out.release();
  errno = 0;
  TIFFClose(closing);
}

}  // namespace

void write_ome_tiff(std::string const& level0, std::string const& temp_out, std::string const& path,
                    WriteOptions const& options) {
  PixelType const type = pixel_type(read_image_region(level0, Region{0, 0, 1, 1}));
  switch (type) {
    case PixelType::u8: write_pyramid<std::uint8_t>(level0, temp_out, path, type, options); break;
    case PixelType::u16: write_pyramid<std::uint16_t>(level0, temp_out, path, type, options); break;
    case PixelType::u32: write_pyramid<std::uint32_t>(level0, temp_out, path, type, options); break;
    case PixelType::f32: write_pyramid<float>(level0, temp_out, path, type, options); break;
    case PixelType::rgb8: write_pyramid<Rgb8>(level0, temp_out, path, type, options); break;
  }
}

namespace {

// Microns per unit of OME's UnitsLength names (0 for a unit that is not a length gigaseg knows).
double microns_per(std::string const& unit) {
  if (unit.empty() || unit == "\xc2\xb5m" || unit == "\xce\xbcm" || unit == "um" || unit == "micron") return 1;
  if (unit == "nm") return 1e-3;
  if (unit == "pm") return 1e-6;
  if (unit == "\xc3\x85" || unit == "\xe2\x84\xab") return 1e-4;  // angstrom
  if (unit == "mm") return 1e3;
  if (unit == "cm") return 1e4;
  if (unit == "m") return 1e6;
  return 0;
}

xmlNode const* child_named(xmlNode const* node, char const* name) {
  for (xmlNode const* c = node != nullptr ? node->children : nullptr; c != nullptr; c = c->next)
    if (c->type == XML_ELEMENT_NODE && std::strcmp(reinterpret_cast<char const*>(c->name), name) == 0) return c;
  return nullptr;
}

std::string attribute(xmlNode const* node, char const* name) {
  xmlChar* value = xmlGetProp(node, reinterpret_cast<xmlChar const*>(name));
  if (value == nullptr) return {};
  std::string const text = reinterpret_cast<char const*>(value);
  xmlFree(value);
  return text;
}

}  // namespace

void ome_physical_size(std::string const& path, std::string const& xml, double& microns_x, double& microns_y) {
  static std::once_flag init;
  std::call_once(init, [] { xmlInitParser(); });
  std::unique_ptr<xmlDoc, void (*)(xmlDoc*)> doc(
      xmlReadMemory(xml.data(), int(std::min<std::size_t>(xml.size(), 0x7fffffff)), "OME-XML", nullptr,
                    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING),
      &xmlFreeDoc);
  if (doc == nullptr) {
    xmlError const* error = xmlGetLastError();
    std::string reason = "its OME-XML (the TIFF's ImageDescription) is not well-formed XML";
    if (error != nullptr && error->message != nullptr) {
      std::string message = error->message;
      while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
      reason += ": line " + std::to_string(error->line) + ": " + message;
    }
    GIGASEG_THROW(ErrorKind::input, path, reason);
  }
  xmlNode const* root = xmlDocGetRootElement(doc.get());
  GIGASEG_REQUIRE(root != nullptr && std::strcmp(reinterpret_cast<char const*>(root->name), "OME") == 0,
                  ErrorKind::input, path, "its OME-XML has no OME element at its root");
  xmlNode const* pixels = child_named(child_named(root, "Image"), "Pixels");
  GIGASEG_REQUIRE(pixels != nullptr, ErrorKind::input, path, "its OME-XML has no Image with Pixels");
  auto const size = [&](char const* name) {
    std::string const value = attribute(pixels, name);
    if (value.empty()) return 0.0;
    char* end = nullptr;
    double const v = std::strtod(value.c_str(), &end);
    GIGASEG_REQUIRE(end != value.c_str() && *end == '\0' && std::isfinite(v) && v > 0, ErrorKind::input, path,
                    std::string("its OME-XML's ") + name + " is not a positive number: '" + value + "'");
    return v * microns_per(attribute(pixels, (std::string(name) + "Unit").c_str()));
  };
  microns_x = size("PhysicalSizeX");
  microns_y = size("PhysicalSizeY");
}

}  // namespace detail
}  // namespace gigaseg
