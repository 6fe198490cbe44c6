#pragma once
// The tile engine's three stages overlapped: a reader thread decodes the next tiles while the
// calling thread computes the current one (it owns the backend's execution space) and a writer
// thread compresses and stores the previous ones.
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

namespace gigaseg::detail {

// A bounded first-in first-out hand-over between two threads. close(): no more items (the
// receiver still gets those queued); abort(): both sides stop now.
template <class T>
class Handoff {
 public:
  explicit Handoff(std::size_t capacity) : capacity_(capacity) {}
  bool push(T value) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return aborted_ || items_.size() < capacity_; });
    if (aborted_) return false;
    items_.push_back(std::move(value));
    changed_.notify_all();
    return true;
  }
  std::optional<T> pop() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return aborted_ || closed_ || !items_.empty(); });
    if (aborted_ || items_.empty()) return std::nullopt;
    T value = std::move(items_.front());
    items_.pop_front();
    changed_.notify_all();
    return value;
  }
  void close() {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
    changed_.notify_all();
  }
  void abort() {
    std::lock_guard<std::mutex> lock(mutex_);
    aborted_ = true;
    changed_.notify_all();
  }

 private:
  std::size_t capacity_;
  std::deque<T> items_;
  bool closed_ = false, aborted_ = false;
  std::mutex mutex_;
  std::condition_variable changed_;
};

// For i in [0, count): read(i) on a reader thread, at most `depth` tiles ahead; compute(i, read's
// result) on the calling thread, in order; write(i, compute's result) on a writer thread, in
// order, at most `depth` tiles behind. The first exception of any stage stops the others and is
// rethrown here once both threads have ended.
template <class Read, class Compute, class Write>
void pipeline_tiles(std::size_t count, Read&& read, Compute&& compute, Write&& write, std::size_t depth = 2) {
  using Tile = decltype(read(std::size_t(0)));
  using Result = decltype(compute(std::size_t(0), std::declval<Tile&&>()));
  Handoff<std::pair<std::size_t, Tile>> reads(depth);
  Handoff<std::pair<std::size_t, Result>> writes(depth);
  std::mutex mutex;
  std::exception_ptr error;
  auto fail = [&](std::exception_ptr e) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (!error) error = e;
    }
    reads.abort();
    writes.abort();
  };
  std::thread reader([&] {
    try {
      for (std::size_t i = 0; i < count; ++i)
        if (!reads.push({i, read(i)})) return;
      reads.close();
    } catch (...) {
      fail(std::current_exception());
    }
  });
  std::thread writer([&] {
    try {
      while (auto item = writes.pop()) write(item->first, std::move(item->second));
    } catch (...) {
      fail(std::current_exception());
    }
  });
  try {
    while (auto item = reads.pop())
      if (!writes.push({item->first, compute(item->first, std::move(item->second))})) break;
    writes.close();
  } catch (...) {
    fail(std::current_exception());
  }
  reader.join();
  writer.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace gigaseg::detail
