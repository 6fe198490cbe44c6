#!/usr/bin/env bash
# Installs the Debian 12 packages gigaseg builds and tests with. Idempotent: when every package is
# already installed it changes nothing and needs no network.
set -euo pipefail
packages=(
  g++ cmake ninja-build ccache pkg-config python3
  libhwloc-dev libtiff-dev libpng-dev libcfitsio-dev libopenslide-dev libxml2-dev zlib1g-dev libdeflate-dev libzstd-dev libcli11-dev nlohmann-json3-dev libfmt-dev
  libblosc-dev                              # OME-Zarr chunks (core/io/zarr_file.cpp)
  libgtest-dev libbenchmark-dev
  libfftw3-dev libopenmpi-dev
  libopencv-core-dev libopencv-imgproc-dev  # test oracle only
  libopencv-imgcodecs-dev                   # the command line's peer (perf/opencv_cli_peer.cpp)
  python3-skimage                           # its sample photographs: the cross-backend test's inputs
  python3-tifffile                          # reads the OME-TIFF outputs back in the tests
  python3-openslide                         # the slide reads' peer (perf/slide_read.py)
  clang libclang-rt-14-dev                  # libFuzzer for the readers' fuzzers (scripts/fuzz.sh)
  clang-format-14                           # the format check (scripts/check-format.sh)
  # The readers of the reader-matrix test (tests/readers/test_readers.py): GDAL, libvips, Pillow,
  # ImageJ (a JDK for java's single-file launcher), and shapely for the GeoJSON outlines.
  python3-gdal gdal-bin libvips-tools python3-pil python3-shapely libij-java default-jdk-headless
  python3-zarr                              # reads the OME-Zarr outputs back in the tests
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
