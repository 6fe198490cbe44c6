#include "apps/gigaseg/ranks.hpp"

#include "gigaseg/gigaseg_config.hpp"
#if GIGASEG_HAVE_MPI
#include "gigaseg/engine/mpi/mpi_group.hpp"
#endif

namespace gigaseg::cli {

#if GIGASEG_HAVE_MPI
struct Ranks::Mpi {
  MpiEnvironment environment;
  MpiGroup world;
  Mpi(int* argc, char*** argv) : environment(argc, argv), world(MPI_COMM_WORLD) {}
};

Ranks::Ranks(int* argc, char*** argv) {
  if (!launched_by_mpi()) return;
  mpi_ = std::make_unique<Mpi>(argc, argv);
}
ProcessGroup const* Ranks::group() const noexcept { return mpi_ && mpi_->world.size() > 1 ? &mpi_->world : nullptr; }
int Ranks::rank() const noexcept { return mpi_ ? mpi_->world.rank() : 0; }
int Ranks::size() const noexcept { return mpi_ ? mpi_->world.size() : 1; }
int Ranks::node_rank() const noexcept { return mpi_ ? mpi_->world.node_rank() : 0; }
int Ranks::node_size() const noexcept { return mpi_ ? mpi_->world.node_size() : 1; }
bool Ranks::cuda_aware() const noexcept { return mpi_ && mpi_cuda_aware(); }
#else
struct Ranks::Mpi {};
Ranks::Ranks(int*, char***) {}
ProcessGroup const* Ranks::group() const noexcept { return nullptr; }
int Ranks::rank() const noexcept { return 0; }
int Ranks::size() const noexcept { return 1; }
int Ranks::node_rank() const noexcept { return 0; }
int Ranks::node_size() const noexcept { return 1; }
bool Ranks::cuda_aware() const noexcept { return false; }
#endif

Ranks::~Ranks() = default;

}  // namespace gigaseg::cli
