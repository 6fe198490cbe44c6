#pragma once
// A priority queue for small integer priorities (8/16-bit relief values): one first-in-first-out
// bucket per value, the lowest non-empty one first. Equal values leave in the order they came,
// which is the (value, age) order of a binary heap with a push counter, at O(1) a push and a pop.
// Empty after pop() returns false, and reusable.
#include <cstddef>
#include <vector>

namespace gigaseg::detail {

template <class Entry>
class BucketQueue {
 public:
  explicit BucketQueue(std::size_t levels) : buckets_(levels), head_(levels, 0), lowest_(levels) {}

  void push(std::size_t value, Entry entry) {
    buckets_[value].push_back(entry);
    if (value < lowest_) lowest_ = value;
  }

  bool pop(Entry& entry) {
    while (lowest_ < buckets_.size()) {
      std::vector<Entry>& bucket = buckets_[lowest_];
      if (head_[lowest_] < bucket.size()) {
        entry = bucket[head_[lowest_]++];
        return true;
      }
      bucket.clear();  // exhausted: a later push of this value starts it afresh
      head_[lowest_] = 0;
      ++lowest_;
    }
    return false;
  }

 private:
  std::vector<std::vector<Entry>> buckets_;
  std::vector<std::size_t> head_;
  std::size_t lowest_;
};

}  // namespace gigaseg::detail
