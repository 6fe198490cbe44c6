// MPI for the tiled drivers (engine/mpi/mpi_group.hpp).
#include "gigaseg/engine/mpi/mpi_group.hpp"

#include "gigaseg/core/error.hpp"

#include <climits>
#include <cstdlib>
#include <string>

namespace gigaseg {
namespace {

constexpr int message_tag = 7301;  // the group's point-to-point messages

void check(int code, char const* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  GIGASEG_THROW(ErrorKind::resource, call, std::string(text, std::size_t(length)));
}

int message_count(std::size_t bytes) {
  GIGASEG_REQUIRE(bytes <= std::size_t(INT_MAX), ErrorKind::resource, "MpiGroup",
                  "a message of " + std::to_string(bytes) + " bytes is over MPI's 2 GiB");
  return int(bytes);
}

}  // namespace

MpiGroup::MpiGroup(MPI_Comm comm) {
  check(MPI_Comm_dup(comm, &comm_), "MPI_Comm_dup");
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  MPI_Comm node = MPI_COMM_NULL;
  check(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
  MPI_Comm_rank(node, &node_rank_);
  MPI_Comm_size(node, &node_size_);
  MPI_Comm_free(&node);
}

MpiGroup::~MpiGroup() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

std::vector<std::vector<unsigned char>> MpiGroup::all_gather(std::vector<unsigned char> const& mine) const {
  int const count = message_count(mine.size());
  std::vector<int> counts(std::size_t(size_), 0), at(std::size_t(size_), 0);
  check(MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, comm_), "MPI_Allgather");
  std::size_t total = 0;
  for (int r = 0; r < size_; ++r) {
    at[std::size_t(r)] = message_count(total);
    total += std::size_t(counts[std::size_t(r)]);
  }
  message_count(total);
  std::vector<unsigned char> all(total);
  check(MPI_Allgatherv(mine.data(), count, MPI_BYTE, all.data(), counts.data(), at.data(), MPI_BYTE, comm_),
        "MPI_Allgatherv");
  std::vector<std::vector<unsigned char>> out(static_cast<std::size_t>(size_));
  for (int r = 0; r < size_; ++r) {
    auto const first = all.begin() + at[std::size_t(r)];
    out[std::size_t(r)].assign(first, first + counts[std::size_t(r)]);
  }
  return out;
}

void MpiGroup::sum(std::uint64_t* values, std::size_t count) const {
  check(MPI_Allreduce(MPI_IN_PLACE, values, message_count(count), MPI_UINT64_T, MPI_SUM, comm_), "MPI_Allreduce");
}

void MpiGroup::send(int to, std::vector<unsigned char> const& bytes) const {
  check(MPI_Send(bytes.data(), message_count(bytes.size()), MPI_BYTE, to, message_tag, comm_), "MPI_Send");
}

std::vector<unsigned char> MpiGroup::receive(int from) const {
  MPI_Status status;
  check(MPI_Probe(from, message_tag, comm_, &status), "MPI_Probe");
  int count = 0;
  MPI_Get_count(&status, MPI_BYTE, &count);
  std::vector<unsigned char> bytes(static_cast<std::size_t>(count));
  check(MPI_Recv(bytes.data(), count, MPI_BYTE, from, message_tag, comm_, MPI_STATUS_IGNORE), "MPI_Recv");
  return bytes;
}

MpiEnvironment::MpiEnvironment(int* argc, char*** argv) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) return;
  int provided = 0;
  check(MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  owned_ = true;
}

MpiEnvironment::~MpiEnvironment() {
  if (owned_) MPI_Finalize();
}

bool launched_by_mpi() {
  for (char const* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(name) != nullptr) return true;
  return false;
}

}  // namespace gigaseg
