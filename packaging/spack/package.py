# Spack recipe for gigaseg: `spack repo add packaging/spack/..` is not needed; copy this file to
# <your repo>/packages/gigaseg/package.py. The variants +serial, +openmp and +cuda are Kokkos's
# backends and are passed on to the Kokkos that gigaseg is built with (the way ArborX's recipe
# does), with the CUDA architecture; +mpi builds the MPI process group (GIGASEG_ENABLE_MPI).
#
#   spack install gigaseg +cuda cuda_arch=90 +mpi
#   spack install gigaseg +openmp +mpi ^openmpi
#
# Not exercised by CI (no Spack on the build machine): the CMake options it sets are those of
# docs/building.md, which CI does build.

from spack.package import *


class Gigaseg(CMakePackage, CudaPackage):
    """Segmentation of very large images (whole slides, mosaics, sky surveys) on GPUs and CPUs,
    with tiled, streamed and MPI-distributed execution; a Kokkos library and a command-line tool."""

    # The project has no public address yet: point `git` at your clone (a path or a URL).
    homepage = "file:///opt/src/gigaseg/README.md"
    git = "file:///opt/src/gigaseg"

    version("main", branch="main")

    kokkos_backends = {
        "serial": (True, "Kokkos's Serial backend"),
        "openmp": (True, "Kokkos's OpenMP backend (the host backend)"),
        "cuda": (False, "Kokkos's CUDA backend and gigaseg's tuned CUDA paths"),
    }
    for backend, (default, description) in kokkos_backends.items():
        if backend != "cuda":  # CudaPackage declares +cuda
            variant(backend, default=default, description=description)
    variant("mpi", default=True, description="the MPI process group: ranks sharing an image or a batch")
    variant("apps", default=True, description="the gigaseg command-line tool")

    depends_on("cmake@3.21:", type="build")
    depends_on("kokkos@3.4.01:")
    for backend in kokkos_backends:
        depends_on("kokkos+" + backend, when="+" + backend)
    depends_on("kokkos+cuda_lambda", when="+cuda")
    for arch in CudaPackage.cuda_arch_values:
        depends_on("kokkos cuda_arch=" + arch, when="+cuda cuda_arch=" + arch)
    conflicts("~serial~openmp", msg="gigaseg needs a host backend: +serial or +openmp")

    depends_on("mpi", when="+mpi")
    depends_on("libtiff+zlib+zstd")
    depends_on("libpng")
    depends_on("zlib-api")
    depends_on("libdeflate")
    depends_on("zstd")
    depends_on("hwloc@2:")
    depends_on("fftw precision=float +openmp")
    depends_on("cli11", when="+apps")
    depends_on("nlohmann-json")

    def cmake_args(self):
        spec = self.spec
        args = [
            self.define("Kokkos_ROOT", spec["kokkos"].prefix),
            self.define_from_variant("GIGASEG_ENABLE_MPI", "mpi"),
            self.define_from_variant("GIGASEG_ENABLE_CUDA_KERNELS", "cuda"),
            self.define_from_variant("GIGASEG_ENABLE_APPS", "apps"),
            self.define("GIGASEG_ENABLE_TESTS", self.run_tests),
            self.define("GIGASEG_ENABLE_BENCHMARKS", False),
        ]
        if spec.satisfies("+cuda"):
            args.append(self.define("CMAKE_CXX_COMPILER", spec["kokkos"].kokkos_cxx))
        return args
