#pragma once
// Reading and writing image files: PNG (libpng), TIFF (libtiff), PGM/PPM and FITS (cfitsio, read
// only); whole-slide images (OpenSlide, read only).
//
// Files are read into host images of the pixel type they hold; the format is recognised from
// the file's first bytes, not its name (a whole-slide image: by OpenSlide). Writing picks the format from the extension
// and is atomic (AtomicOutput). Every failure is an Error(input) naming the file.
//
// Conventions (docs/cli.md repeats them for users):
//  - alpha channels are dropped; gray+alpha reads as gray;
//  - colour images are 8-bit RGB; 16-bit colour is scaled to 8 bits (v * 255 / 65535, rounded);
//  - palette images are expanded to RGB; PGM/PPM values are kept as stored (no maxval scaling).
#include "gigaseg/core/image.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <variant>
#include <vector>

namespace gigaseg {

using AnyHostImage = std::variant<HostImage<std::uint8_t>, HostImage<std::uint16_t>, HostImage<std::uint32_t>,
                                  HostImage<float>, HostImage<Rgb8>>;

PixelType pixel_type(AnyHostImage const& image);
index_t width(AnyHostImage const& image);
index_t height(AnyHostImage const& image);

// `slide`: a whole-slide image OpenSlide names a vendor for (Aperio SVS, Hamamatsu, MIRAX, Leica,
// Philips, Ventana, Sakura), read a level at a time as 8-bit RGB. A plain TIFF, tiled or not, is
// read by libtiff (OpenSlide's "generic-tiff" vendor), in the pixel type it holds.
// `zarr`: a Zarr v2 array or an OME-Zarr image (a folder), read by region; written as OME-Zarr
// for outputs named *.ome.zarr (core/io/zarr_file.cpp).
enum class ImageFormat { png, tiff, pnm, fits, slide, zarr };
char const* to_string(ImageFormat format) noexcept;

// How TIFF pixels are compressed. Deflate is the codec every TIFF reader has (libtiff, tifffile
// without imagecodecs, ImageJ, Bio-Formats and so QuPath, GDAL, libvips); Zstd (libtiff 4.0.10 and
// later, GDAL, libvips; tifffile only with imagecodecs; not ImageJ) writes and reads faster at a
// similar size. docs/formats.md shows which reader reads which variant, as its test found.
enum class TiffCompression { none, deflate, zstd };
char const* to_string(TiffCompression compression) noexcept;

struct WriteOptions {
  bool force_bigtiff = false;  // BigTIFF even below 4 GiB (it is chosen automatically above)
  index_t tiff_tile = 0;       // write TIFF in square tiles of this size (multiple of 16); 0: strips
  TiffCompression tiff_compression = TiffCompression::deflate;
  // With a codec, the predictor: horizontal differencing for integer samples (Predictor=2), the
  // floating-point predictor for floats (Predictor=3). Off by default: ImageJ 1.53 misreads both
  // predictors without an error, ImageJ 1.54 and Bio-Formats the floating-point one, tifffile needs
  // imagecodecs for it, and on labels and distances it made Deflate's files larger and slower
  // (docs/formats.md).
  bool tiff_predictor = false;
  // Codec level: 0 takes the fast default (Deflate 1 through libdeflate, Zstd 1); Deflate 1..12,
  // Zstd 1..19.
  int compression_level = 0;
  // The physical size of a pixel in microns (0: unknown), which OME-TIFF outputs state.
  double microns_per_pixel_x = 0, microns_per_pixel_y = 0;
};

// Whether `path` names an OME-TIFF (.ome.tif or .ome.tiff, any case). Such outputs (write_image,
// TiffTileWriter) are pyramidal OME-TIFFs: the image tiled (512 x 512 when written whole), its
// reduced levels as SubIFDs, each half the size of the one before until the largest side is at
// most 512 (labels reduced by the most common of each 2 x 2 block, other images by the mean), and
// OME-XML stating the size, the pixel type and WriteOptions' physical pixel size.
bool is_ome_tiff_name(std::string const& path);

// Whether `path` names an OME-Zarr output (.ome.zarr, any case): an OME-NGFF 0.4 image, a folder of
// Zarr v2 arrays, the full resolution and its reduced levels in chunks of 512 x 512 (Blosc with
// Zstd, or uncompressed under TiffCompression::none), reduced as the OME-TIFF pyramid is; 32-bit
// labels marked as an NGFF label image. Written whole under a temporary name and renamed.
bool is_ome_zarr_name(std::string const& path);
// Whether `path` is a folder holding a Zarr array or group: an input read_image, read_image_region
// and image_shape take (ImageFormat::zarr), by region.
bool is_zarr_folder(std::string const& path);

// The options write_image uses when it is given none: WriteOptions{} until the process sets others
// (the command line sets them from --compression). Process-wide.
void set_default_write_options(WriteOptions const& options);
WriteOptions default_write_options();

// The threads the image writers encode on: PNG (large images) and compressed TIFF are encoded in
// pieces on these threads and written in order. 0, the default: the cores this process may run on.
// Process-wide; the command line sets it from --threads.
void set_io_threads(int threads) noexcept;
int io_threads() noexcept;

// Which level of a whole-slide image is read: `slide_level`, or with `slide_mpp` > 0 the level
// whose microns per pixel are nearest it in ratio (the finer level on a tie; a slide that states no
// resolution is an Error(input)). A level the slide does not have is an Error(usage) naming the
// file. Other images have one level and ignore these. Process-wide, like the write options: the
// command line sets them from --level and --mpp.
struct ReadOptions {
  int slide_level = 0;
  double slide_mpp = 0;
};
void set_default_read_options(ReadOptions const& options);
ReadOptions default_read_options();

// What OpenSlide says of a whole-slide image: its vendor, its levels (level 0 the full resolution;
// downsample: level 0's pixels per pixel of the level), microns per pixel at level 0 (0: not
// stated), the objective's power (0: not stated), the colour shown where nothing was scanned, and
// the names of its associated images (label, macro, thumbnail).
struct SlideLevel {
  index_t width = 0, height = 0;
  double downsample = 1;
  index_t tile_height = 0;  // the rows of the level's own tiles, where OpenSlide says them (0: not said)
};
struct SlideInfo {
  std::string vendor;
  std::vector<SlideLevel> levels;
  double mpp_x = 0, mpp_y = 0;
  double objective_power = 0;
  Rgb8 background{255, 255, 255};
  std::vector<std::string> associated_images;
};
// Throws Error(input) naming the file when it is not a whole-slide image or OpenSlide rejects it.
SlideInfo slide_info(std::string const& path);

// Reads `path`. Throws Error(input) if it is missing, a directory, unreadable, truncated, corrupt
// or holds a pixel layout gigaseg does not support; Error(resource) if the image does not fit in
// memory. A pipe, FIFO or `/dev/stdin` is read once, into memory, then decoded.
AnyHostImage read_image(std::string const& path);
ImageFormat detect_format(std::string const& path);

// A rectangle of an image: columns [x, x + width), rows [y, y + height).
struct Region {
  index_t x = 0, y = 0, width = 0, height = 0;
};

// Reads the rectangle `region` of a TIFF or BigTIFF (strips or tiles, any codec libtiff has), of
// a FITS image (plain or tile-compressed) or of a whole-slide image's level, decoding only the
// strips, rows or tiles it overlaps; the pixels are those read_image gives there.
// Throws Error(usage) naming the file when the region is empty or not inside the image, and
// Error(input) for a PNG or PGM/PPM, which cannot be read by region (their rows are one stream).
AnyHostImage read_image_region(std::string const& path, Region const& region);

// An image's size, from its header alone, and the unit its pixels are stored and decoded in: a
// TIFF's tiles, or for strips the full width by the rows of a strip; the whole image for PNG and
// PGM/PPM (one stream of rows). Errors as read_image's.
// Whole-slide images are decoded in chunks of 1024 x 1024 of the level read. The physical size of a
// pixel in microns, where the file states it (a slide's openslide.mpp-x/y times the level's
// downsample); 0 where it does not.
struct ImageShape {
  index_t width = 0, height = 0;
  index_t block_width = 0, block_height = 0;
  double microns_per_pixel_x = 0, microns_per_pixel_y = 0;
};
ImageShape image_shape(std::string const& path);

// Decodes `input` (PNG, PGM/PPM or TIFF) a band of `tile_height` rows at a time into `output`, a
// TIFF tiled tile_width x tile_height (multiples of 16) and compressed as `options` say, written
// atomically: a PNG or PGM/PPM, which cannot be read by region, becomes a file the tile engine
// reads by region, without the whole image in memory (an interlaced PNG, whose rows come in seven
// passes, is decoded whole). A TIFF is read a band at a time by region.
void write_tiled_copy(std::string const& input, std::string const& output, index_t tile_width, index_t tile_height,
                      WriteOptions const& options);

// The largest image (width x height, and a TIFF tile) the readers accept: a larger one is an
// Error(resource) naming the file, raised before any pixel memory is allocated. The default, 0,
// sets no limit beyond memory (whole-slide images are large). A service that reads untrusted
// files, and the fuzzers (tests/fuzz), set one: a corrupt header can claim any size. Process-wide.
void set_read_pixel_limit(index_t pixels) noexcept;
index_t read_pixel_limit() noexcept;

// Writes `image` to `path` in the format its extension names (.png, .tif/.tiff, .pgm/.ppm).
// Throws Error(usage) for an unknown extension or a pixel type the format cannot hold.
// PNG: zlib level 1 with run-length matching over the "sub" row filter (OpenCV's imwrite
// settings); an image of 8 MiB or more on more than one io_threads() is compressed in independent
// pieces of rows on those threads (the pixels are the same; the bytes differ from a one-piece
// stream). TIFF: strips of about 1 MiB, or tiles, compressed as `options` say.
void write_image(std::string const& path, AnyHostImage const& image, WriteOptions const& options);
void write_image(std::string const& path, AnyHostImage const& image);  // default_write_options()
ImageFormat format_for_extension(std::string const& path);

namespace detail {
// Throws Error(resource) naming `path` when w x h passes read_pixel_limit().
void check_read_size(std::string const& path, index_t w, index_t h, char const* what = "image");
// The readers name `path` in their errors and read the bytes at `source` (empty: `path` itself);
// read_image passes a copy of a pipe's stream as `source`.
// With `bands`, read_png and read_pnm hand the image over `band_rows` rows at a time, top to
// bottom, as bands(pixels, first row) (the last band may be shorter; the pixels are valid during
// the call only), and return an empty image.
using Bands = std::function<void(AnyHostImage const&, index_t)>;
AnyHostImage read_png(std::string const& path, std::string const& source = {}, Bands const* bands = nullptr,
                      index_t band_rows = 0);
ImageShape png_shape(std::string const& path, std::string const& source);
ImageShape pnm_shape(std::string const& path, std::string const& source);
AnyHostImage read_tiff(std::string const& path, std::string const& source = {}, Region const* region = nullptr);
// FITS through cfitsio (core/io/fits_file.cpp): the first image HDU, 2-D; u8, u16 and u32 where the
// integers are unsigned, else 32-bit float with BSCALE/BZERO applied and BLANK as NaN.
AnyHostImage read_fits(std::string const& path, std::string const& source = {}, Region const* region = nullptr);
ImageShape fits_shape(std::string const& path, std::string const& source);
// Whole-slide images through OpenSlide (core/io/slide_file.cpp). slide_vendor: the vendor OpenSlide
// names for the regular file `source` ("" for none, and for a stream), kept per file.
std::string slide_vendor(std::string const& source);
SlideInfo read_slide_info(std::string const& path, std::string const& source);
ImageShape slide_shape(std::string const& path, std::string const& source);
AnyHostImage read_slide(std::string const& path, std::string const& source, Region const* region = nullptr);
// The level `options` pick of a slide (ReadOptions).
index_t slide_level(std::string const& path, SlideInfo const& info, ReadOptions const& options);
ImageShape tiff_shape(std::string const& path, std::string const& source);
AnyHostImage read_pnm(std::string const& path, std::string const& source = {}, Bands const* bands = nullptr,
                      index_t band_rows = 0);
void write_png(std::string const& temp_path, std::string const& path, AnyHostImage const& image);
void write_tiff(std::string const& temp_path, std::string const& path, AnyHostImage const& image,
                WriteOptions const& options);
void write_pnm(std::string const& temp_path, std::string const& path, AnyHostImage const& image);
// Zarr (core/io/zarr_file.cpp): its shape (blocks: the chunks), its pixel type, its pixels (a region
// of them); the OME-Zarr output of `image` at `path` (is_ome_zarr_name), written atomically.
ImageShape zarr_shape(std::string const& path);
PixelType zarr_pixel_type(std::string const& path);
AnyHostImage read_zarr(std::string const& path, Region const* region = nullptr);
void write_ome_zarr(std::string const& path, AnyHostImage const& image, WriteOptions const& options);
// Assembles the OME-TIFF of `path` (is_ome_tiff_name) at temp_path from `level0`, a tiled TIFF of
// the full-resolution image (core/io/ome_tiff.cpp).
void write_ome_tiff(std::string const& level0, std::string const& temp_path, std::string const& path,
                    WriteOptions const& options);
// The physical pixel size (microns; 0 where not stated) in the OME-XML `xml` of the TIFF `path`.
// Error(input) naming the file when the XML is not well-formed or holds no OME Image with Pixels.
void ome_physical_size(std::string const& path, std::string const& xml, double& microns_x, double& microns_y);
// Whether a TIFF of w x h pixels of `pixel` bytes, stored in blocks of block_width x block_height
// (edge blocks padded to the full block; 0 x 0: strips of the full width), takes BigTIFF: its
// stored pixels, padding included, would pass what classic TIFF's 32-bit offsets address, less
// 64 MiB for the directory, the block tables and compression's worst-case growth.
constexpr bool needs_bigtiff(index_t w, index_t h, index_t pixel, index_t block_width, index_t block_height) noexcept {
  index_t const stored_w = block_width > 0 ? (w + block_width - 1) / block_width * block_width : w;
  index_t const stored_h = block_height > 0 ? (h + block_height - 1) / block_height * block_height : h;
  return stored_w * stored_h * pixel > (index_t(1) << 32) - (index_t(64) << 20);
}
// OpenSlide's premultiplied ARGB pixel composited over the background `bg`: c + (255 - a) * bg / 255,
// rounded (an opaque pixel is its colour, a transparent one the background).
constexpr Rgb8 over_background(std::uint32_t argb, Rgb8 bg) noexcept {
  unsigned const t = 255 - (argb >> 24);
  return {std::uint8_t(((argb >> 16) & 255) + (t * bg.r + 127) / 255),
          std::uint8_t(((argb >> 8) & 255) + (t * bg.g + 127) / 255),
          std::uint8_t((argb & 255) + (t * bg.b + 127) / 255)};
}
// 16-bit colour to 8 bits, the rounding libpng's png_set_scale_16 uses.
constexpr std::uint8_t scale_16_to_8(std::uint32_t v) noexcept {
  return static_cast<std::uint8_t>((v * 255u + 32767u) / 65535u);
}
}  // namespace detail

}  // namespace gigaseg
