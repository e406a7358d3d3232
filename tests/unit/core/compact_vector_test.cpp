#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/compact_vector.h"
#include "core/fact.h"

using namespace mpsaudit;

namespace {

// Counts the live instances, so that a test sees every element destroyed.
struct Tracked {
  static inline int live = 0;
  std::string text;
  explicit Tracked(std::string t = "") : text(std::move(t)) { ++live; }
  Tracked(const Tracked &other) : text(other.text) { ++live; }
  Tracked(Tracked &&other) noexcept : text(std::move(other.text)) { ++live; }
  Tracked &operator=(const Tracked &) = default;
  Tracked &operator=(Tracked &&) noexcept = default;
  ~Tracked() { --live; }
  bool operator==(const Tracked &other) const { return text == other.text; }
};

std::vector<std::string> texts(const CompactVector<Tracked> &values) {
  std::vector<std::string> out;
  for (const Tracked &value : values)
    out.push_back(value.text);
  return out;
}

} // namespace

TEST_CASE("an empty compact vector is one pointer and allocates nothing", "[compact-vector]") {
  static_assert(sizeof(CompactVector<Argument>) == sizeof(void *));
  const CompactVector<std::string> empty;
  CHECK(empty.empty());
  CHECK(empty.size() == 0);
  CHECK(empty.capacity() == 0);
  CHECK(empty.data() == nullptr);
  CHECK(empty.begin() == empty.end());
  CHECK(empty == CompactVector<std::string>{});
}

TEST_CASE("a fact without arguments or attributes is small", "[compact-vector]") {
  // Three interned texts, a span, the two lists, the cell and the flags.
  CHECK(sizeof(Fact) <= 72);
}

TEST_CASE("elements grow, keep their order and survive regrowth", "[compact-vector]") {
  CompactVector<std::string> values;
  for (int i = 0; i < 100; ++i)
    values.push_back("value " + std::to_string(i));
  REQUIRE(values.size() == 100);
  CHECK(values.capacity() >= 100);
  CHECK(values.front() == "value 0");
  CHECK(values.back() == "value 99");
  CHECK(values[42] == "value 42");
  CHECK(values.at(7) == "value 7");
  CHECK_THROWS_AS(values.at(100), std::out_of_range);
}

TEST_CASE("pushing an element of the vector itself while it grows copies the old value", "[compact-vector]") {
  CompactVector<std::string> values{"a long text that does not fit in the small-string buffer"};
  REQUIRE(values.capacity() == 1);
  values.push_back(values[0]); // regrows: the argument refers into the old block
  REQUIRE(values.size() == 2);
  CHECK(values[1] == values[0]);
  CHECK(values[1] == "a long text that does not fit in the small-string buffer");
}

TEST_CASE("copies are deep and moves leave the source empty", "[compact-vector]") {
  CompactVector<std::string> original{"x", "y"};
  CompactVector<std::string> copy = original;
  copy.push_back("z");
  CHECK(original.size() == 2);
  CHECK(copy.size() == 3);

  CompactVector<std::string> moved = std::move(copy);
  CHECK(moved.size() == 3);
  CHECK(copy.empty()); // NOLINT(bugprone-use-after-move): the moved-from state is the point

  moved = original;
  CHECK(moved == original);
  moved = {"only"};
  CHECK(moved.size() == 1);
  CHECK(moved != original);

  std::vector<std::string> as_std(original.begin(), original.end());
  CHECK(as_std == std::vector<std::string>{"x", "y"});
}

TEST_CASE("erase, resize and clear destroy exactly what they remove", "[compact-vector]") {
  Tracked::live = 0;
  {
    CompactVector<Tracked> values;
    for (const char *text : {"a", "b", "c", "d", "e"})
      values.emplace_back(text);
    CHECK(Tracked::live == 5);

    auto next = values.erase(values.begin() + 1); // b
    CHECK(next->text == "c");
    CHECK(texts(values) == std::vector<std::string>{"a", "c", "d", "e"});
    CHECK(Tracked::live == 4);

    values.erase(values.begin() + 1, values.begin() + 3); // c, d
    CHECK(texts(values) == std::vector<std::string>{"a", "e"});
    CHECK(Tracked::live == 2);

    values.resize(4);
    CHECK(texts(values) == std::vector<std::string>{"a", "e", "", ""});
    CHECK(Tracked::live == 4);
    values.resize(1);
    CHECK(texts(values) == std::vector<std::string>{"a"});
    CHECK(Tracked::live == 1);

    values.pop_back();
    CHECK(values.empty());
    CHECK(Tracked::live == 0);

    values.emplace_back("kept until the end of the scope");
    values.clear();
    CHECK(values.capacity() == 0); // clear gives the block back
    values.emplace_back("destroyed with the vector");
  }
  CHECK(Tracked::live == 0);
}

TEST_CASE("a fact's attributes and arguments behave as before", "[compact-vector]") {
  Fact fact;
  fact.set_attribute("bound", "torch");
  fact.set_attribute("relative", "1");
  fact.set_attribute("bound", "np"); // replaces
  REQUIRE(fact.attribute("bound") != nullptr);
  CHECK(*fact.attribute("bound") == "np");
  CHECK(fact.attributes.size() == 2);

  Argument positional;
  positional.text = "x";
  Argument keyword;
  keyword.keyword = "device";
  keyword.text = "'cuda'";
  fact.arguments.push_back(positional);
  fact.arguments.push_back(keyword);
  CHECK(fact.positional_argument(0)->text == "x");
  CHECK(fact.keyword_argument("device")->text == "'cuda'");

  const Fact copy = fact;
  fact.arguments.clear();
  CHECK(copy.arguments.size() == 2);
  CHECK(copy.keyword_argument("device") != nullptr);
}
