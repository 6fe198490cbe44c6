# Sourced on a GPU machine that has no MPI: unpacks the OpenMPI runtime that pack-device.sh carried
# (Debian 12's packages, .devbuild/mpi/*.deb) into /tmp/gigaseg-ompi and points OpenMPI and PMIx
# at it (OPAL_PREFIX and the paths Debian's build keeps outside the prefix). Ranks talk through
# shared memory (btl self,vader); components whose libraries are absent there (InfiniBand, UCX,
# libfabric) are skipped quietly. Root may run mpirun there.
#   source scripts/device-mpi-env.sh && mpirun -n 2 .devbuild/gigaseg ...
ompi_root=/tmp/gigaseg-ompi
if [ ! -x "$ompi_root/usr/bin/orterun" ]; then
  mkdir -p "$ompi_root"
  for deb in "$(dirname "${BASH_SOURCE[0]}")"/../.devbuild/mpi/*.deb; do dpkg -x "$deb" "$ompi_root"; done
  ln -sf orterun "$ompi_root/usr/bin/mpirun"
fi
export PATH=$ompi_root/usr/bin:$PATH
export LD_LIBRARY_PATH=$ompi_root/usr/lib/x86_64-linux-gnu:$ompi_root/usr/lib/x86_64-linux-gnu/openmpi/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export OPAL_PREFIX=$ompi_root/usr OPAL_SYSCONFDIR=$ompi_root/etc/openmpi
export PMIX_INSTALL_PREFIX=$ompi_root/usr/lib/x86_64-linux-gnu/pmix2
export PMIX_MCA_mca_base_component_path=$PMIX_INSTALL_PREFIX/lib/pmix
export OMPI_MCA_btl=self,vader OMPI_MCA_pml=ob1 OMPI_MCA_mca_base_component_show_load_errors=0
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
