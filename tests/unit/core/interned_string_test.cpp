#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/interned_string.h"

using namespace mpsaudit;

TEST_CASE("equal texts share one copy", "[interned]") {
  const std::string built = std::string("torch.cuda.") + "synchronize";
  const InternedString a("torch.cuda.synchronize");
  const InternedString b(built);
  CHECK(a == b);
  CHECK(a.c_str() == b.c_str()); // the same storage, not two equal copies
  CHECK(a.str() == "torch.cuda.synchronize");
  CHECK(InternedString("x").c_str() != a.c_str());
}

TEST_CASE("an empty text needs no pool entry, and a default one is empty", "[interned]") {
  const InternedString defaulted;
  const InternedString empty("");
  CHECK(defaulted.empty());
  CHECK(defaulted == empty);
  CHECK(defaulted.c_str() == empty.c_str());
  CHECK(defaulted.size() == 0);
}

TEST_CASE("an interned text compares and concatenates like the text it holds", "[interned]") {
  const InternedString path("src/train.py");
  const std::string same = "src/train.py";
  CHECK(path == same);
  CHECK(same == path);
  CHECK(path == std::string_view("src/train.py"));
  CHECK(path == "src/train.py");
  CHECK(path != "src/model.py");
  CHECK(path < "src/z.py");
  CHECK("src/a.py" < path);
  CHECK(InternedString("a") < InternedString("b"));
  CHECK_FALSE(InternedString("b") < InternedString("a"));
  CHECK_FALSE(path < path);
  CHECK(path + ":3" == "src/train.py:3");
  CHECK("in " + path == "in src/train.py");
  CHECK(path.substr(4) == "train.py");
  CHECK(path.rfind('/') == 3);
  CHECK(path.find("train") == 4);
  std::ostringstream out;
  out << path;
  CHECK(out.str() == "src/train.py");
}

TEST_CASE("interned texts order as their texts do, not by address", "[interned]") {
  // Interned in the reverse of their order, so addresses would sort wrongly.
  std::vector<InternedString> names{InternedString("zeta"), InternedString("mu"), InternedString("alpha")};
  std::sort(names.begin(), names.end());
  CHECK(names == std::vector<InternedString>{"alpha", "mu", "zeta"});
  std::map<InternedString, int> counts;
  ++counts["mu"];
  ++counts[InternedString("mu")];
  CHECK(counts.size() == 1);
  CHECK(counts.begin()->second == 2);
}

TEST_CASE("threads interning the same texts at once get one copy of each", "[interned]") {
  constexpr int thread_count = 4;
  constexpr int text_count = 2000;
  std::vector<std::vector<const char *>> seen(thread_count);
  std::vector<std::thread> threads;
  for (int t = 0; t < thread_count; ++t)
    threads.emplace_back([t, &seen] {
      for (int i = 0; i < text_count; ++i)
        seen[t].push_back(InternedString("concurrent-" + std::to_string(i)).c_str());
    });
  for (auto &thread : threads)
    thread.join();
  for (int t = 1; t < thread_count; ++t)
    CHECK(seen[t] == seen[0]);
  CHECK(std::string(seen[0][17]) == "concurrent-17");
}
