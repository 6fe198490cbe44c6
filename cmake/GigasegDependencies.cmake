# Third-party libraries, all Debian 12 packages (scripts/install-deps.sh installs them).
find_package(PkgConfig REQUIRED)
find_package(TIFF REQUIRED)
find_package(PNG REQUIRED)
pkg_check_modules(HWLOC REQUIRED IMPORTED_TARGET hwloc)
# FITS images (core/io/fits_file.cpp): read by region, tile-compressed ones included.
pkg_check_modules(CFITSIO REQUIRED IMPORTED_TARGET cfitsio)
# Whole-slide images (core/io/slide_file.cpp): SVS, NDPI, MIRAX, SCN and the rest, read by region.
pkg_check_modules(OPENSLIDE REQUIRED IMPORTED_TARGET openslide)
# OME-XML in OME-TIFF inputs (core/io/ome_tiff.cpp).
pkg_check_modules(LIBXML2 REQUIRED IMPORTED_TARGET libxml-2.0)
# The image writers' own compressors (PNG and TIFF pieces encoded on several threads).
find_package(ZLIB REQUIRED)
pkg_check_modules(DEFLATE REQUIRED IMPORTED_TARGET libdeflate)
pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)
# OME-Zarr outputs and Zarr inputs (core/io/zarr_file.cpp): Blosc chunks, JSON metadata (header-only).
pkg_check_modules(BLOSC REQUIRED IMPORTED_TARGET blosc)
find_package(nlohmann_json 3 REQUIRED)
# FFTW (single precision) for FFT convolution on the host, with its OpenMP threads library.
pkg_check_modules(FFTW3F REQUIRED IMPORTED_TARGET fftw3f)
find_library(FFTW3F_OMP_LIBRARY fftw3f_omp REQUIRED)
if(Kokkos_ENABLE_CUDA)
  find_package(CUDAToolkit REQUIRED)  # cuFFT
endif()
find_package(fmt REQUIRED)
if(GIGASEG_ENABLE_APPS)
  find_package(CLI11 CONFIG QUIET)
  if(NOT CLI11_FOUND)
    find_path(CLI11_INCLUDE_DIR CLI/CLI.hpp REQUIRED)
    add_library(CLI11::CLI11 INTERFACE IMPORTED)
    target_include_directories(CLI11::CLI11 INTERFACE ${CLI11_INCLUDE_DIR})
  endif()
endif()
