#pragma once
// The exceptions of a host parallel loop whose bodies may throw (a std::vector that grows, a
// buffer allocated per band: std::bad_alloc where memory runs out).
//
// An exception cannot leave an OpenMP parallel region: the runtime calls std::terminate, so the
// process aborts instead of reporting a resource error, and under MPI the other ranks wait for it
// until they are killed. Each body runs through `guard`, which keeps the first exception thrown
// and lets the loop finish; `rethrow` throws it on the calling thread once the loop has ended.
#include <exception>
#include <mutex>
#include <utility>

namespace gigaseg::detail {

class LoopErrors {
 public:
  template <class F>
  void guard(F&& body) noexcept {
    try {
      std::forward<F>(body)();
    } catch (...) {
      std::lock_guard<std::mutex> const lock(mutex_);
      if (!first_) first_ = std::current_exception();
    }
  }
  void rethrow() const {
    if (first_) std::rethrow_exception(first_);
  }

 private:
  std::mutex mutex_;
  std::exception_ptr first_;
};

}  // namespace gigaseg::detail
