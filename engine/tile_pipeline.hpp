#pragma once
// The tile engine's three stages overlapped: reader threads decode the next tiles while the
// calling thread computes the current one (it owns the backend's execution space) and writer
// threads compress and store the previous ones.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

namespace gigaseg {

// The time each stage of a tiled pass was busy, summed over its threads, in seconds: reads and
// writes of several tiles overlap one another, and the three stages overlap, so the sum of the
// three exceeds the wall time where the overlap works.
struct StageSeconds {
  double read = 0, compute = 0, write = 0;
};

}  // namespace gigaseg

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

// For i in [0, count): read(i) on `workers.readers` reader threads, at most `workers.readers + 1`
// tiles ahead of the one being computed; compute(i, read's result) on the calling thread, in order
// (it owns the backend's execution space); write(i, compute's result) on `workers.writers` writer
// threads, at most `workers.writers` results waiting. Reads and writes of different tiles run at
// once: read and write must be safe to call from several threads (with one reader and one writer
// every stage sees the tiles in order). A failed read is reported when its tile's turn to be
// computed comes, so the failure reported is that of the first bad tile in order; the first
// failure of any stage stops the others and is rethrown here once every thread has ended.
struct PipelineWorkers {
  int readers = 1, writers = 1;
  StageSeconds* seconds = nullptr;  // when given, each stage's busy time is added to it
};

template <class Read, class Compute, class Write>
void pipeline_tiles(std::size_t count, Read&& read, Compute&& compute, Write&& write,
                    PipelineWorkers const& workers = {}) {
  using Tile = decltype(read(std::size_t(0)));
  using Result = decltype(compute(std::size_t(0), std::declval<Tile&&>()));
  std::size_t const readers = std::size_t(std::max(1, workers.readers));
  std::size_t const writers = std::size_t(std::max(1, workers.writers));
  std::size_t const ahead = readers + 1;
  // Tiles read and not yet computed, by index (a failed read holds its exception).
  struct Slot {
    std::optional<Tile> tile;
    std::exception_ptr failure;
  };
  std::mutex mutex;  // guards slots, next_read, computing, stop
  std::condition_variable changed;
  std::map<std::size_t, Slot> slots;
  std::size_t next_read = 0, computing = 0;
  bool stop = false;
  Handoff<std::pair<std::size_t, Result>> writes(writers);
  std::exception_ptr error;
  StageSeconds busy;  // guarded by mutex
  auto since = [](std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  auto fail = [&](std::exception_ptr e) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (!error) error = e;
      stop = true;
    }
    changed.notify_all();
    writes.abort();
  };
  auto reader = [&] {
    for (;;) {
      std::size_t i = 0;
      {
        std::unique_lock<std::mutex> lock(mutex);
        changed.wait(lock, [&] { return stop || next_read >= count || next_read < computing + ahead; });
        if (stop || next_read >= count) return;
        i = next_read++;
      }
      Slot slot;
      auto const start = std::chrono::steady_clock::now();
      try {
        slot.tile.emplace(read(i));
      } catch (...) {
        slot.failure = std::current_exception();
      }
      bool const failed = bool(slot.failure);
      {
        std::lock_guard<std::mutex> lock(mutex);
        busy.read += since(start);
        slots.emplace(i, std::move(slot));
        if (failed) next_read = count;  // no tile after a bad one is read
      }
      changed.notify_all();
    }
  };
  auto writer = [&] {
    try {
      while (auto item = writes.pop()) {
        auto const start = std::chrono::steady_clock::now();
        write(item->first, std::move(item->second));
        std::lock_guard<std::mutex> lock(mutex);
        busy.write += since(start);
      }
    } catch (...) {
      fail(std::current_exception());
    }
  };
  std::vector<std::thread> threads;
  for (std::size_t k = 0; k < readers; ++k) threads.emplace_back(reader);
  for (std::size_t k = 0; k < writers; ++k) threads.emplace_back(writer);
  try {
    for (std::size_t i = 0; i < count; ++i) {
      Slot slot;
      {
        std::unique_lock<std::mutex> lock(mutex);
        changed.wait(lock, [&] { return stop || slots.count(i) > 0; });
        if (stop) break;
        auto const found = slots.find(i);
        slot = std::move(found->second);
        slots.erase(found);
        computing = i + 1;
      }
      changed.notify_all();
      if (slot.failure) std::rethrow_exception(slot.failure);
      auto const start = std::chrono::steady_clock::now();
      Result result = compute(i, std::move(*slot.tile));
      {
        std::lock_guard<std::mutex> lock(mutex);
        busy.compute += since(start);
      }
      if (!writes.push({i, std::move(result)})) break;
    }
    writes.close();
  } catch (...) {
    fail(std::current_exception());
  }
  {
    std::lock_guard<std::mutex> lock(mutex);
    stop = true;  // readers waiting for room end
  }
  changed.notify_all();
  for (std::thread& thread : threads) thread.join();
  if (workers.seconds != nullptr) {
    workers.seconds->read += busy.read;
    workers.seconds->compute += busy.compute;
    workers.seconds->write += busy.write;
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace gigaseg::detail
