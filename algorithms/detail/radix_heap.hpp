#pragma once
// A monotone priority queue for 64-bit integer keys (a radix heap): pop() returns entries in
// increasing key order, provided no key pushed is below the last one popped, as in a flood or
// Dijkstra's algorithm whose steps never lower a key. Bucket b holds the keys whose highest bit
// differing from the last popped key is bit b - 1 (bucket 0: equal to it); a pop that finds bucket
// 0 empty takes the smallest key of the first non-empty bucket as the new last key and spreads that
// bucket over the lower ones. Each entry moves at most 64 times: O(1) amortised a push and a pop
// for the short key steps of a flood. Entries of equal keys leave in no particular order.
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace gigaseg::detail {

template <class Value>
class RadixHeap {
 public:
  void push(std::uint64_t key, Value value) {  // key >= the last key popped
    buckets_[bucket(key)].emplace_back(key, value);
    ++size_;
  }

  bool pop(std::uint64_t& key, Value& value) {
    if (size_ == 0) return false;
    if (buckets_[0].empty()) {
      int b = 1;
      while (buckets_[b].empty()) ++b;
      std::uint64_t smallest = buckets_[b].front().first;
      for (auto const& entry : buckets_[b]) smallest = entry.first < smallest ? entry.first : smallest;
      last_ = smallest;
      for (auto const& entry : buckets_[b]) buckets_[bucket(entry.first)].push_back(entry);
      buckets_[b].clear();
    }
    key = buckets_[0].back().first;
    value = buckets_[0].back().second;
    buckets_[0].pop_back();
    --size_;
    return true;
  }

  // Empty again, and ready for keys from 0 (the buckets keep their memory).
  void reset() {
    for (auto& bucket : buckets_) bucket.clear();
    last_ = 0;
    size_ = 0;
  }

 private:
  int bucket(std::uint64_t key) const { return key == last_ ? 0 : 64 - __builtin_clzll(key ^ last_); }

  std::vector<std::pair<std::uint64_t, Value>> buckets_[65];
  std::uint64_t last_ = 0;
  std::size_t size_ = 0;
};

}  // namespace gigaseg::detail
