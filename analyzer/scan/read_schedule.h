// The order in which the scan's threads read files: C/C++/CUDA/Metal files
// ("native") first, so that the Clang libraries' pages can go as soon as the
// last of them is read (release_reading_memory in frontend/frontend.h), and
// no thread waiting while another loads Clang.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace mpsaudit {

// Runs `worker` on `threads` threads, this one among them, and returns when
// every run has.
template <typename Worker> void run_on_threads(unsigned threads, const Worker &worker) {
  std::vector<std::thread> pool;
  pool.reserve(threads > 1 ? threads - 1 : 0);
  for (unsigned t = 1; t < threads; ++t)
    pool.emplace_back(worker);
  worker();
  for (auto &thread : pool)
    thread.join();
}

// Runs `body` on every index of `natives` and of `others`, each once, on
// `jobs` threads, natives first. Until `loaded()` (the native files' front end
// has loaded Clang, about 90 ms, on the first native file not in the result
// cache), one thread at a time reads native files and the others read other
// files rather than wait for the load; with nothing else left they wait. A
// warm run whose native files all come from the cache never loads Clang, and
// keeps one thread on them.
template <typename Loaded, typename Body>
void read_natives_first(const std::vector<std::size_t> &natives, const std::vector<std::size_t> &others,
                        unsigned jobs, Loaded &&loaded, Body &&body) {
  std::atomic<std::size_t> next_native{0}, next_other{0};
  std::atomic<unsigned> natives_in_flight{0};
  const auto take = [](std::atomic<std::size_t> &next, const std::vector<std::size_t> &queue,
                       std::size_t &index) {
    if (next.load(std::memory_order_relaxed) >= queue.size())
      return false;
    const std::size_t k = next.fetch_add(1);
    if (k >= queue.size())
      return false;
    index = queue[k];
    return true;
  };
  // A native file, if one is left and this thread may read it now.
  const auto take_native = [&](std::size_t &index) {
    if (loaded()) {
      natives_in_flight.fetch_add(1);
    } else if (unsigned none = 0; !natives_in_flight.compare_exchange_strong(none, 1)) {
      return false;
    }
    if (take(next_native, natives, index))
      return true;
    natives_in_flight.fetch_sub(1);
    return false;
  };
  const auto run_native = [&](std::size_t index) {
    body(index);
    natives_in_flight.fetch_sub(1);
  };
  const auto worker = [&] {
    for (std::size_t i;;) {
      if (take_native(i)) {
        run_native(i);
      } else if (take(next_other, others, i)) {
        body(i);
      } else if (take(next_native, natives, i)) { // nothing else left: wait for the load
        natives_in_flight.fetch_add(1);
        run_native(i);
      } else {
        break;
      }
    }
  };
  run_on_threads(
      std::max(1u, std::min<unsigned>(jobs, static_cast<unsigned>(natives.size() + others.size()))), worker);
}

} // namespace mpsaudit
