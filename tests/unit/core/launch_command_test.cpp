#include <catch2/catch.hpp>

#include <optional>
#include <string>
#include <tuple>

#include "core/launch_command.h"

using namespace mpsaudit;

namespace {

// offset, name, args, module; or "-" for no command.
std::tuple<std::size_t, std::string, std::string, std::string> read(const std::string &line) {
  const std::optional<LaunchCommand> command = read_launch_command(line);
  if (!command)
    return {0, "-", "", ""};
  return {command->word_offset, command->name, command->args, command->module};
}

} // namespace

TEST_CASE("a launch line: prompt and assignments skipped, arguments joined, python -m", "[core][launch]") {
  using Read = std::tuple<std::size_t, std::string, std::string, std::string>;
  CHECK(read("python train.py --epochs 3") == Read{0, "python", "train.py --epochs 3", ""});
  CHECK(read("$ python3  sample.py") == Read{2, "python3", "sample.py", ""});
  CHECK(read("CUDA_VISIBLE_DEVICES=0,1 torchrun --nproc_per_node 2 train.py") ==
        Read{25, "torchrun", "--nproc_per_node 2 train.py", ""});
  CHECK(read("python -m pkg.serve --port 8000") ==
        Read{0, "python", "-m pkg.serve --port 8000", "pkg.serve"});
  CHECK(read("/usr/bin/python3 -m pkg.a -m pkg.b") == Read{0, "python3", "-m pkg.a -m pkg.b", "pkg.a"});
  CHECK(read("./scripts/run.sh fast") == Read{0, "run.sh", "fast", ""});
  // -m belongs to python alone; a line of assignments or blanks runs nothing.
  CHECK(read("torchrun -m pkg.train") == Read{0, "torchrun", "-m pkg.train", ""});
  CHECK(read("A=1 B=2") == Read{0, "-", "", ""});
  CHECK(read("   ") == Read{0, "-", "", ""});
  CHECK(read("$") == Read{0, "-", "", ""});
  CHECK(read("=x python a.py") == Read{0, "=x", "python a.py", ""}); // not an assignment
}

TEST_CASE("a shell fact's launch attributes", "[core][launch]") {
  Fact fact;
  set_launch_attributes(fact, *read_launch_command("python -m pkg.run x"));
  CHECK(*fact.attribute("args") == "-m pkg.run x");
  CHECK(*fact.attribute("module") == "pkg.run");
  Fact plain;
  set_launch_attributes(plain, *read_launch_command("python a.py"));
  CHECK(*plain.attribute("args") == "a.py");
  CHECK_FALSE(plain.attribute("module"));
}
