#pragma once

// A vector that is one pointer wide. A scan keeps about a million facts on a
// tree of 50,000 files, most of them without arguments or attributes: two
// empty std::vectors cost 48 bytes a fact, two of these 16. The size and
// capacity live in the allocation, before the elements.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace mpsaudit {

template <typename T> class CompactVector {
  static_assert(std::is_nothrow_move_constructible_v<T>, "elements are moved when the block grows");

public:
  using value_type = T;
  using size_type = std::size_t;
  using reference = T &;
  using const_reference = const T &;
  using iterator = T *;
  using const_iterator = const T *;

  CompactVector() noexcept = default;
  CompactVector(std::initializer_list<T> values) { assign(values.begin(), values.end()); }
  template <typename Iterator, typename = typename std::iterator_traits<Iterator>::iterator_category>
  CompactVector(Iterator first, Iterator last) {
    assign(first, last);
  }
  CompactVector(const CompactVector &other) { assign(other.begin(), other.end()); }
  CompactVector(CompactVector &&other) noexcept : block_(std::exchange(other.block_, nullptr)) {}
  CompactVector &operator=(const CompactVector &other) {
    if (this != &other) {
      CompactVector copy(other);
      swap(copy);
    }
    return *this;
  }
  CompactVector &operator=(CompactVector &&other) noexcept {
    if (this != &other) {
      release();
      block_ = std::exchange(other.block_, nullptr);
    }
    return *this;
  }
  CompactVector &operator=(std::initializer_list<T> values) {
    CompactVector copy(values);
    swap(copy);
    return *this;
  }
  ~CompactVector() { release(); }

  void swap(CompactVector &other) noexcept { std::swap(block_, other.block_); }

  size_type size() const noexcept { return block_ ? block_->size : 0; }
  size_type capacity() const noexcept { return block_ ? block_->capacity : 0; }
  bool empty() const noexcept { return size() == 0; }

  T *data() noexcept { return block_ ? elements(block_) : nullptr; }
  const T *data() const noexcept { return block_ ? elements(block_) : nullptr; }
  iterator begin() noexcept { return data(); }
  iterator end() noexcept { return data() + size(); }
  const_iterator begin() const noexcept { return data(); }
  const_iterator end() const noexcept { return data() + size(); }
  const_iterator cbegin() const noexcept { return begin(); }
  const_iterator cend() const noexcept { return end(); }

  T &operator[](size_type index) noexcept { return data()[index]; }
  const T &operator[](size_type index) const noexcept { return data()[index]; }
  T &at(size_type index) {
    check_index(index);
    return data()[index];
  }
  const T &at(size_type index) const {
    check_index(index);
    return data()[index];
  }
  T &front() noexcept { return data()[0]; }
  const T &front() const noexcept { return data()[0]; }
  T &back() noexcept { return data()[size() - 1]; }
  const T &back() const noexcept { return data()[size() - 1]; }

  void reserve(size_type wanted) {
    if (wanted > capacity())
      regrow(wanted);
  }

  template <typename... Args> T &emplace_back(Args &&...args) {
    const size_type count = size();
    if (count == capacity()) {
      // Built in the new block before the old elements move, so that an
      // argument that refers to one of them (`v.push_back(v[0])`) stays valid.
      Block *grown = allocate(grown_capacity(count + 1));
      T *slot;
      try {
        slot = new (elements(grown) + count) T(std::forward<Args>(args)...);
      } catch (...) {
        deallocate(grown);
        throw;
      }
      move_into(grown);
      block_ = grown;
      block_->size = static_cast<std::uint32_t>(count + 1);
      return *slot;
    }
    T *slot = new (elements(block_) + count) T(std::forward<Args>(args)...);
    ++block_->size;
    return *slot;
  }
  void push_back(const T &value) { emplace_back(value); }
  void push_back(T &&value) { emplace_back(std::move(value)); }
  void pop_back() noexcept {
    back().~T();
    --block_->size;
  }

  iterator erase(const_iterator first, const_iterator last) {
    T *items = begin();
    T *target = items + (first - items);
    T *source = items + (last - items);
    T *old_end = end();
    if (target == source)
      return target;
    T *kept_end = std::move(source, old_end, target);
    for (T *dead = kept_end; dead != old_end; ++dead)
      dead->~T();
    block_->size = static_cast<std::uint32_t>(kept_end - items);
    return target;
  }
  iterator erase(const_iterator position) { return erase(position, position + 1); }

  void resize(size_type wanted) {
    while (size() > wanted)
      pop_back();
    reserve(wanted);
    while (size() < wanted)
      emplace_back();
  }
  // Gives the memory back, as the facts that keep no arguments should.
  void clear() noexcept { release(); }

  friend bool operator==(const CompactVector &a, const CompactVector &b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }
  friend bool operator!=(const CompactVector &a, const CompactVector &b) { return !(a == b); }

private:
  struct Block {
    std::uint32_t size;
    std::uint32_t capacity;
  };
  static constexpr std::size_t kElementOffset = (sizeof(Block) + alignof(T) - 1) / alignof(T) * alignof(T);
  // Plain operator new's alignment suffices: no over-aligned elements.
  static_assert(alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__, "over-aligned elements");

  static T *elements(Block *block) noexcept {
    return std::launder(reinterpret_cast<T *>(reinterpret_cast<unsigned char *>(block) + kElementOffset));
  }
  static const T *elements(const Block *block) noexcept {
    return std::launder(
        reinterpret_cast<const T *>(reinterpret_cast<const unsigned char *>(block) + kElementOffset));
  }
  static Block *allocate(size_type capacity) {
    if (capacity > std::numeric_limits<std::uint32_t>::max())
      throw std::length_error("CompactVector: too many elements");
    void *memory = ::operator new(kElementOffset + capacity * sizeof(T));
    return new (memory) Block{0, static_cast<std::uint32_t>(capacity)};
  }
  static void deallocate(Block *block) noexcept { ::operator delete(block); }
  // Small lists stay small: facts have a handful of arguments.
  static size_type grown_capacity(size_type needed) noexcept {
    return std::max<size_type>(needed, size_type{2} * (needed - 1));
  }

  void check_index(size_type index) const {
    if (index >= size())
      throw std::out_of_range("CompactVector::at");
  }
  // Moves every element into `grown` (whose size stays for the caller to
  // set) and frees the old block.
  void move_into(Block *grown) noexcept {
    if (!block_)
      return;
    T *from = elements(block_);
    T *to = elements(grown);
    for (std::uint32_t i = 0; i < block_->size; ++i) {
      new (to + i) T(std::move(from[i]));
      from[i].~T();
    }
    deallocate(block_);
  }
  void regrow(size_type wanted) {
    Block *grown = allocate(wanted);
    const std::uint32_t count = static_cast<std::uint32_t>(size());
    move_into(grown);
    block_ = grown;
    block_->size = count;
  }
  template <typename Iterator> void assign(Iterator first, Iterator last) {
    if constexpr (std::is_base_of_v<std::forward_iterator_tag,
                                    typename std::iterator_traits<Iterator>::iterator_category>)
      reserve(static_cast<size_type>(std::distance(first, last)));
    for (; first != last; ++first)
      emplace_back(*first);
  }
  void release() noexcept {
    if (!block_)
      return;
    T *items = elements(block_);
    for (std::uint32_t i = 0; i < block_->size; ++i)
      items[i].~T();
    deallocate(block_);
    block_ = nullptr;
  }

  Block *block_ = nullptr;
};

} // namespace mpsaudit
