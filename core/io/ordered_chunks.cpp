#include "gigaseg/core/io/ordered_chunks.hpp"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

namespace gigaseg::detail {

void encode_in_order(std::size_t count, int threads,
                     std::function<void(std::size_t, std::vector<unsigned char>&)> const& encode,
                     std::function<void(std::size_t, std::vector<unsigned char>&)> const& write) {
  if (count == 0) return;
  std::size_t const workers = std::min<std::size_t>(count, std::size_t(std::max(threads, 1)));
  if (workers == 1) {
    std::vector<unsigned char> bytes;
    for (std::size_t i = 0; i < count; ++i) {
      bytes.clear();
      encode(i, bytes);
      write(i, bytes);
    }
    return;
  }
  // Chunk i is encoded into slot i % window, which chunk i - window has left once written.
  std::size_t const window = 2 * workers;
  struct Slot {
    std::vector<unsigned char> bytes;
    bool ready = false;
  };
  std::vector<Slot> slots(window);
  std::mutex mutex;
  std::condition_variable changed;
  std::size_t next = 0, written = 0;
  bool stop = false;
  std::exception_ptr error;
  auto fail = [&](std::exception_ptr e) {
    std::lock_guard<std::mutex> lock(mutex);
    if (!error) error = e;
    stop = true;
    changed.notify_all();
  };
  auto worker = [&] {
    for (;;) {
      std::size_t i = 0;
      {
        std::unique_lock<std::mutex> lock(mutex);
        changed.wait(lock, [&] { return stop || next >= count || next < written + window; });
        if (stop || next >= count) return;
        i = next++;
      }
      Slot& slot = slots[i % window];
      try {
        slot.bytes.clear();
        encode(i, slot.bytes);
      } catch (...) {
        fail(std::current_exception());
        return;
      }
      {
        std::lock_guard<std::mutex> lock(mutex);
        slot.ready = true;
      }
      changed.notify_all();
    }
  };
  std::vector<std::thread> pool;
  try {
    for (std::size_t t = 0; t < workers; ++t) pool.emplace_back(worker);
    while (written < count) {
      Slot& slot = slots[written % window];
      {
        std::unique_lock<std::mutex> lock(mutex);
        changed.wait(lock, [&] { return stop || slot.ready; });
        if (stop) break;
      }
      write(written, slot.bytes);
      {
        std::lock_guard<std::mutex> lock(mutex);
        slot.ready = false;
        ++written;
      }
      changed.notify_all();
    }
  } catch (...) {
    fail(std::current_exception());
  }
  for (auto& thread : pool) thread.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace gigaseg::detail
