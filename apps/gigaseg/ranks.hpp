#pragma once
// The ranks a run of the tool shares its work with. Started by an MPI launcher (mpirun, srun
// --mpi=pmix) in a build with MPI (GIGASEG_ENABLE_MPI), the tool joins MPI_COMM_WORLD: the tiled
// commands split their tiles over the ranks, rank 0 writes the outputs and prints, and every rank
// ends with the same exit code. Started by hand, or built without MPI, it is one process.
#include "gigaseg/engine/process_group.hpp"

#include <memory>

namespace gigaseg::cli {

class Ranks {
 public:
  Ranks(int* argc, char*** argv);
  ~Ranks();
  Ranks(Ranks const&) = delete;
  Ranks& operator=(Ranks const&) = delete;

  ProcessGroup const* group() const noexcept;  // null when alone
  int rank() const noexcept;
  int size() const noexcept;
  // This rank's place among the ranks on its node, and their number (0 and 1 when alone).
  int node_rank() const noexcept;
  int node_size() const noexcept;
  bool cuda_aware() const noexcept;  // the MPI passes GPU memory itself (engine/mpi/mpi_group.hpp)

 private:
  struct Mpi;
  std::unique_ptr<Mpi> mpi_;
};

}  // namespace gigaseg::cli
