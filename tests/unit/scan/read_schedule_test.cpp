#include "scan/read_schedule.h"

#include <atomic>
#include <chrono>
#include <mutex>
#include <numeric>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

using namespace mpsaudit;

namespace {

std::vector<std::size_t> indices(std::size_t from, std::size_t to) {
  std::vector<std::size_t> list(to - from);
  std::iota(list.begin(), list.end(), from);
  return list;
}

// The order in which `body` saw the indices, on `jobs` threads.
template <typename Loaded>
std::vector<std::size_t> read_order(const std::vector<std::size_t> &natives,
                                    const std::vector<std::size_t> &others, unsigned jobs, Loaded loaded) {
  std::mutex guard;
  std::vector<std::size_t> seen;
  read_natives_first(natives, others, jobs, loaded, [&](std::size_t i) {
    const std::lock_guard<std::mutex> lock(guard);
    seen.push_back(i);
  });
  return seen;
}

} // namespace

TEST_CASE("native files are read first, every file once", "[scan][schedule]") {
  const auto natives = indices(0, 5), others = indices(5, 40);
  SECTION("one thread: natives, then the others, in order") {
    CHECK(read_order(natives, others, 1, [] { return true; }) == indices(0, 40));
    CHECK(read_order(natives, others, 1, [] { return false; }) == indices(0, 40));
  }
  SECTION("four threads") {
    std::vector<std::size_t> seen = read_order(natives, others, 4, [] { return true; });
    std::sort(seen.begin(), seen.end());
    CHECK(seen == indices(0, 40));
  }
  SECTION("no natives, or nothing else") {
    CHECK(read_order({}, others, 2, [] { return false; }).size() == others.size());
    CHECK(read_order(natives, {}, 2, [] { return false; }).size() == natives.size());
  }
}

TEST_CASE("while the first native file loads Clang, the other thread reads other files", "[scan][schedule]") {
  const auto natives = indices(0, 3), others = indices(3, 13);
  std::atomic<bool> clang_loaded{false};
  std::atomic<int> others_read_during_load{0};
  std::atomic<int> natives_read_during_load{0};
  // Waits for `condition`, at most a second (a broken schedule fails the
  // checks below instead of hanging).
  const auto wait_for = [](auto condition) {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    while (!condition() && std::chrono::steady_clock::now() < give_up)
      std::this_thread::yield();
  };
  read_natives_first(
      natives, others, 2, [&] { return clang_loaded.load(); },
      [&](std::size_t i) {
        if (clang_loaded.load())
          return;
        if (i >= natives.size()) { // another file, read while the first native one loads Clang
          ++others_read_during_load;
          wait_for([&] { return clang_loaded.load(); });
          return;
        }
        ++natives_read_during_load;
        wait_for([&] { return others_read_during_load.load() > 0; });
        clang_loaded = true;
      });
  CHECK(natives_read_during_load.load() == 1); // no second thread waited on the load
  CHECK(others_read_during_load.load() == 1);
}
