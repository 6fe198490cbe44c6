#pragma once
// MPI for the tiled drivers: the ranks of a communicator as a ProcessGroup
// (engine/process_group.hpp), MPI's set-up for a program, and what the launcher says of this
// process. Built with GIGASEG_ENABLE_MPI only (gigaseg_config.hpp: GIGASEG_HAVE_MPI).
#include "gigaseg/engine/process_group.hpp"

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <vector>

namespace gigaseg {

// The ranks of `comm`. The group talks on its own duplicate of `comm`, so the library's messages
// never meet the caller's. Its operations are called from one thread of each rank (the thread
// that runs the driver), so MPI_THREAD_FUNNELED is enough for all but work_counter. Messages are limited to 2 GiB
// each (MPI's int counts): an all_gather whose ranks' bytes add up to more is an Error(resource).
class MpiGroup final : public ProcessGroup {
 public:
  explicit MpiGroup(MPI_Comm comm);
  ~MpiGroup() override;
  MpiGroup(MpiGroup const&) = delete;
  MpiGroup& operator=(MpiGroup const&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::vector<std::vector<unsigned char>> all_gather(std::vector<unsigned char> const& mine) const override;
  void sum(std::uint64_t* values, std::size_t count) const override;
  void send(int to, std::vector<unsigned char> const& bytes) const override;
  std::vector<unsigned char> receive(int from) const override;
  std::vector<std::vector<unsigned char>> all_to_all(
      std::vector<std::vector<unsigned char>> const& to_each) const override;  // MPI_Alltoallv
  // Rank 0 keeps the count and answers the others from a thread of its own, so that a rank asks
  // while rank 0 computes: MPI_THREAD_MULTIPLE (MpiEnvironment asks for it). Where the MPI gives
  // less, the numbers go round the ranks in turn (rank r takes r, r + size, ...) instead.
  std::unique_ptr<WorkCounter> work_counter(std::size_t limit) const override;
  std::uint64_t bytes_sent() const override { return sent_.load(); }
  MPI_Comm comm() const noexcept { return comm_; }
  // This rank's place among the group's ranks on its node, and their number (the ranks that share
  // its memory: MPI_Comm_split_type): the node's GPUs and cores are shared by these.
  int node_rank() const noexcept { return node_rank_; }
  int node_size() const noexcept { return node_size_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1, node_rank_ = 0, node_size_ = 1;
  mutable std::atomic<std::uint64_t> sent_{0};
};

// MPI initialised for a program (MPI_THREAD_MULTIPLE where the MPI has it) and finalised when this object goes; when
// MPI was initialised already (by the caller), nothing is done either way.
class MpiEnvironment {
 public:
  MpiEnvironment(int* argc, char*** argv);
  ~MpiEnvironment();
  MpiEnvironment(MpiEnvironment const&) = delete;
  MpiEnvironment& operator=(MpiEnvironment const&) = delete;

 private:
  bool owned_ = false;
};

// Whether the MPI passes GPU memory itself (CUDA-aware), asked at run time where the MPI can say
// (Open MPI's MPIX_Query_cuda_support); false otherwise. The engine stages its messages through
// host memory either way: what travels (tile edges, sums, encoded tiles) is on the host already.
bool mpi_cuda_aware();

// True when an MPI launcher started this process (mpirun, or srun with PMIx or PMI2): its
// environment names the job's ranks. A program started by hand runs without MPI.
bool launched_by_mpi();

}  // namespace gigaseg
