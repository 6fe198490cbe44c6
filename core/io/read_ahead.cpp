#include "gigaseg/core/io/read_ahead.hpp"

#include <chrono>
#include <cstdlib>
#include <mutex>
#include <new>
#include <system_error>
#include <vector>

namespace gigaseg {

// The images' memory of one read, page-aligned (ImageView's rows start on 128-byte boundaries).
struct ReadAhead::Memory {
  struct Free {
    void operator()(void* p) const noexcept { std::free(p); }
  };
  std::mutex mutex;
  std::vector<std::unique_ptr<void, Free>> blocks;
};

namespace {
thread_local ReadAhead::Memory* reading = nullptr;  // the read ahead this thread runs, if any
}  // namespace

namespace detail {
bool reading_ahead() noexcept { return reading != nullptr; }

void* read_ahead_memory(std::string const& label, std::size_t bytes) {
  if (reading == nullptr || bytes == 0) return nullptr;
  constexpr std::size_t page = 4096;
  std::size_t const rounded = (bytes + page - 1) / page * page;
  void* const memory = rounded < bytes ? nullptr : std::aligned_alloc(page, rounded);
  if (memory == nullptr) throw OutOfMemory(label, bytes, "Host", __FILE__, __LINE__);
  std::lock_guard<std::mutex> const lock(reading->mutex);
  reading->blocks.emplace_back(memory);
  return memory;
}
}  // namespace detail

ReadAhead::ReadAhead(std::string path) : path_(std::move(path)), memory_(std::make_unique<Memory>()) {
  try {
    thread_ = std::thread([this] {
      auto const start = std::chrono::steady_clock::now();
      reading = memory_.get();
      try {
        image_ = read_image(path_);
      } catch (...) {
        failure_ = std::current_exception();
      }
      reading = nullptr;
      read_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    });
    started_ = true;
  } catch (std::system_error const&) {
  }
}

ReadAhead::~ReadAhead() { join(); }

void ReadAhead::join() {
  if (thread_.joinable()) thread_.join();
}

AnyHostImage ReadAhead::take() {
  GIGASEG_REQUIRE(!done_, ErrorKind::internal, path_, "the image read ahead was already taken");
  done_ = true;
  join();
  if (!started_) return read_image(path_);  // no thread could be started: read here, by Kokkos
  if (failure_) std::rethrow_exception(failure_);
  return std::exchange(image_, AnyHostImage());
}

void ReadAhead::discard() {
  done_ = true;
  join();
  image_ = AnyHostImage();
  failure_ = nullptr;
  memory_->blocks.clear();
}

}  // namespace gigaseg
