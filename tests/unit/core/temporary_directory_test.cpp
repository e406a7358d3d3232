#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <sys/stat.h>

#include "core/temporary_directory.h"

using namespace mpsaudit;
namespace fs = std::filesystem;

TEST_CASE("a temporary directory is private and removed with its files at scope end", "[core][security]") {
  std::string path;
  {
    const TemporaryDirectory directory("mpsaudit-test-");
    REQUIRE(directory.created());
    path = directory.path();
    CHECK(fs::is_directory(path));
    CHECK(fs::path(path).filename().string().rfind("mpsaudit-test-", 0) == 0);
    struct stat info {};
    REQUIRE(::stat(path.c_str(), &info) == 0);
    CHECK((info.st_mode & 0777) == 0700);
    fs::create_directories(path + "/nested/deeper");
    std::ofstream(path + "/nested/deeper/report.json") << "{}";
  }
  CHECK_FALSE(fs::exists(path));
}

TEST_CASE("a temporary directory is removed when an exception leaves its scope", "[core][security]") {
  std::string path;
  try {
    const TemporaryDirectory directory("mpsaudit-test-");
    path = directory.path();
    std::ofstream(path + "/verdicts.json") << "{}";
    throw std::runtime_error("probe failed");
  } catch (const std::runtime_error &) {
  }
  REQUIRE_FALSE(path.empty());
  CHECK_FALSE(fs::exists(path));
}

TEST_CASE("a moved temporary directory is removed once, by its last owner", "[core][security]") {
  TemporaryDirectory first("mpsaudit-test-");
  const std::string path = first.path();
  {
    TemporaryDirectory second(std::move(first));
    CHECK(second.path() == path);
    CHECK_FALSE(first.created()); // NOLINT(bugprone-use-after-move): moved-from is empty by contract
    CHECK(fs::is_directory(path));
  }
  CHECK_FALSE(fs::exists(path));
}
