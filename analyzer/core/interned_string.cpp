#include "core/interned_string.h"

#include <array>
#include <deque>
#include <functional>
#include <mutex>
#include <unordered_map>

namespace mpsaudit {
namespace {

// Scan threads intern at once: a shard per hash range keeps them apart.
constexpr std::size_t shard_count = 16;

struct Shard {
  std::mutex mutex;
  std::deque<std::string> texts; // a deque never moves what it holds
  std::unordered_map<std::string_view, const std::string *> index;
};

// Never destroyed: interned texts are referenced until the process ends,
// static destructors included, and freeing a million strings at exit is
// time the user waits for.
std::array<Shard, shard_count> &shards() {
  static auto *pool = new std::array<Shard, shard_count>();
  return *pool;
}

const std::string &empty_text() {
  static const auto *empty = new std::string(); // outlives static destructors too
  return *empty;
}

const std::string *intern(std::string_view text) {
  if (text.empty())
    return &empty_text();
  const std::size_t hash = std::hash<std::string_view>{}(text);
  Shard &shard = shards()[hash % shard_count];
  const std::lock_guard<std::mutex> lock(shard.mutex);
  const auto found = shard.index.find(text);
  if (found != shard.index.end())
    return found->second;
  const std::string &stored = shard.texts.emplace_back(text);
  shard.index.emplace(stored, &stored);
  return &stored;
}

} // namespace

InternedString::InternedString() noexcept : text_(&empty_text()) {}

InternedString::InternedString(std::string_view text) : text_(intern(text)) {}

} // namespace mpsaudit
