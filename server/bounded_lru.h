// Values by key, at most `capacity` of them: making room drops the least recently touched. This is
// how client-chosen names (titles, ladder rungs) stay a bounded set of metric series. Not
// thread-safe: its owner locks.
#ifndef SSIMD_SERVER_BOUNDED_LRU_H_
#define SSIMD_SERVER_BOUNDED_LRU_H_

#include <cstddef>
#include <list>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ssimd {

template <typename Value>
class BoundedLru {
 public:
  explicit BoundedLru(size_t capacity) : capacity_(capacity) {}

  // The value of `key`, marked most recently touched; a new key gets a default Value after the
  // least recently touched entries are moved into *evicted to make room. nullptr (and nothing
  // evicted) when the capacity is 0.
  Value* Touch(const std::string& key, std::vector<std::pair<std::string, Value>>* evicted) {
    if (capacity_ == 0) return nullptr;
    auto found = index_.find(key);
    if (found != index_.end()) {
      order_.splice(order_.begin(), order_, found->second);
      return &found->second->second;
    }
    while (order_.size() >= capacity_) {
      evicted->push_back(std::move(order_.back()));
      index_.erase(evicted->back().first);
      order_.pop_back();
    }
    order_.emplace_front(key, Value());
    index_.emplace(key, order_.begin());
    return &order_.front().second;
  }

  size_t size() const { return order_.size(); }

  // Every entry, most recently touched first.
  const std::list<std::pair<std::string, Value>>& entries() const { return order_; }

 private:
  using Entries = std::list<std::pair<std::string, Value>>;

  const size_t capacity_;
  Entries order_;  // most recently touched first
  std::unordered_map<std::string, typename Entries::iterator> index_;
};

}  // namespace ssimd

#endif  // SSIMD_SERVER_BOUNDED_LRU_H_
