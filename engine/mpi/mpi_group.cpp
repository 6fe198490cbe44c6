// MPI for the tiled drivers (engine/mpi/mpi_group.hpp).
#include "gigaseg/engine/mpi/mpi_group.hpp"

#include "gigaseg/core/error.hpp"

#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

#include <chrono>
#include <climits>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>

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
  sent_ += std::uint64_t(size_ - 1) * (sizeof(int) + mine.size());
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
  sent_ += std::uint64_t(size_ - 1) * count * sizeof(std::uint64_t);
}

void MpiGroup::send(int to, std::vector<unsigned char> const& bytes) const {
  check(MPI_Send(bytes.data(), message_count(bytes.size()), MPI_BYTE, to, message_tag, comm_), "MPI_Send");
  sent_ += bytes.size();
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

std::vector<std::vector<unsigned char>> MpiGroup::all_to_all(
    std::vector<std::vector<unsigned char>> const& to_each) const {
  GIGASEG_REQUIRE(to_each.size() == std::size_t(size_), ErrorKind::internal, "MpiGroup::all_to_all",
                  "needs one message a rank");
  std::size_t const n = std::size_t(size_);
  // MPI counts bytes in ints: what a rank sends, and what it receives, in all under 2 GiB. Each
  // limit is agreed by every rank before the collective it guards, so that all throw or none.
  auto agree_fits = [&](std::size_t bytes) {
    std::uint64_t over = bytes > std::size_t(INT_MAX) ? 1 : 0;
    check(MPI_Allreduce(MPI_IN_PLACE, &over, 1, MPI_UINT64_T, MPI_SUM, comm_), "MPI_Allreduce");
    GIGASEG_REQUIRE(over == 0, ErrorKind::resource, "MpiGroup",
                    "an exchange of over 2 GiB between the ranks (" + std::to_string(bytes) + " bytes on this rank)");
  };
  std::size_t sending = 0;
  for (auto const& message : to_each) sending += message.size();
  agree_fits(sending);
  std::vector<int> send_counts(n), send_at(n), receive_counts(n), receive_at(n);
  std::vector<unsigned char> out;
  out.reserve(sending);
  for (std::size_t r = 0; r < n; ++r) {
    send_at[r] = int(out.size());
    send_counts[r] = int(to_each[r].size());
    out.insert(out.end(), to_each[r].begin(), to_each[r].end());
    if (int(r) != rank_) sent_ += to_each[r].size() + sizeof(int);
  }
  check(MPI_Alltoall(send_counts.data(), 1, MPI_INT, receive_counts.data(), 1, MPI_INT, comm_), "MPI_Alltoall");
  std::size_t total = 0;
  for (std::size_t r = 0; r < n; ++r) total += std::size_t(receive_counts[r]);
  agree_fits(total);
  for (std::size_t r = 0, at = 0; r < n; at += std::size_t(receive_counts[r]), ++r) receive_at[r] = int(at);
  std::vector<unsigned char> in(total);
  check(MPI_Alltoallv(out.data(), send_counts.data(), send_at.data(), MPI_BYTE, in.data(), receive_counts.data(),
                      receive_at.data(), MPI_BYTE, comm_),
        "MPI_Alltoallv");
  std::vector<std::vector<unsigned char>> received(n);
  for (std::size_t r = 0; r < n; ++r)
    received[r].assign(in.begin() + receive_at[r], in.begin() + receive_at[r] + receive_counts[r]);
  return received;
}

namespace {

// work_counter's counter: kept by rank 0 (WorkCounter).
class MpiWorkCounter final : public WorkCounter {
 public:
  MpiWorkCounter(MPI_Comm parent, std::size_t limit) : limit_(limit) {
    check(MPI_Comm_dup(parent, &comm_), "MPI_Comm_dup");
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
    int level = MPI_THREAD_SINGLE;
    MPI_Query_thread(&level);
    served_ = level == MPI_THREAD_MULTIPLE;
    turn_ = std::size_t(rank_);
    if (served_ && rank_ == 0 && size_ > 1) server_ = std::thread([this] { serve(); });
  }
  ~MpiWorkCounter() override {
    if (served_ && rank_ != 0) MPI_Send(nullptr, 0, MPI_BYTE, 0, done_tag, comm_);
    if (server_.joinable()) server_.join();
    MPI_Comm_free(&comm_);
  }
  std::size_t next() override {
    if (!served_) {  // in turn: r, r + size, ...
      std::size_t const value = turn_ < limit_ ? turn_ : limit_;
      turn_ += std::size_t(size_);
      return value;
    }
    if (rank_ == 0) return take();
    std::uint64_t value = limit_;
    check(MPI_Send(nullptr, 0, MPI_BYTE, 0, claim_tag, comm_), "MPI_Send");
    check(MPI_Recv(&value, 1, MPI_UINT64_T, 0, reply_tag, comm_, MPI_STATUS_IGNORE), "MPI_Recv");
    return std::size_t(value);
  }

 private:
  static constexpr int claim_tag = 1, reply_tag = 2, done_tag = 3;
  std::size_t take() {
    std::lock_guard<std::mutex> lock(mutex_);
    return next_ < limit_ ? next_++ : limit_;
  }
  // Rank 0's answers, until every other rank said it is done. Polls (a blocking receive would
  // keep a core busy inside the MPI library while rank 0 computes).
  void serve() {
    for (int done = 0; done < size_ - 1;) {
      int waiting = 0;
      MPI_Status status;
      MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_, &waiting, &status);
      if (!waiting) {
        std::this_thread::sleep_for(std::chrono::microseconds(100));
        continue;
      }
      MPI_Recv(nullptr, 0, MPI_BYTE, status.MPI_SOURCE, status.MPI_TAG, comm_, MPI_STATUS_IGNORE);
      if (status.MPI_TAG == done_tag) {
        ++done;
        continue;
      }
      std::uint64_t const value = take();
      MPI_Send(&value, 1, MPI_UINT64_T, status.MPI_SOURCE, reply_tag, comm_);
    }
  }
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  std::size_t const limit_;
  bool served_ = false;
  std::size_t turn_ = 0;
  std::mutex mutex_;
  std::size_t next_ = 0;
  std::thread server_;
};

}  // namespace

std::unique_ptr<WorkCounter> MpiGroup::work_counter(std::size_t limit) const {
  return std::make_unique<MpiWorkCounter>(comm_, limit);
}

MpiEnvironment::MpiEnvironment(int* argc, char*** argv) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) return;
  int provided = 0;
  check(MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided), "MPI_Init_thread");
  owned_ = true;
}

MpiEnvironment::~MpiEnvironment() {
  if (owned_) MPI_Finalize();
}

bool mpi_cuda_aware() {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

bool launched_by_mpi() {
  for (char const* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(name) != nullptr) return true;
  return false;
}

}  // namespace gigaseg
