#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>

#include "../scratch_tree.h"
#include "frontend/manifest/manifest_frontend.h"
#include "frontend/manifest/requirement.h"
#include "manifest_test_util.h"

using namespace mpsaudit;
using namespace mpsaudit::test;
namespace fs = std::filesystem;

namespace {

FileFacts read_requirements(std::string text, std::string path = "requirements.txt") {
  SourceFile file;
  file.path = path;
  file.kind = FileKind::Requirements;
  file.text = std::move(text);
  return extract_requirements(file, ExtractOptions{});
}

// A scratch folder of requirements files that reads one as the scan does.
struct RequirementsTree : testing::ScratchTree {
  RequirementsTree() : ScratchTree("mpsaudit-manifest") {}
  FileFacts extract(const std::string &relative, std::uint64_t max_file_bytes = 10u << 20) const {
    SourceFile file;
    file.path = relative;
    file.absolute_path = (root() / relative).string();
    std::ifstream in(root() / relative);
    file.text.assign(std::istreambuf_iterator<char>(in), {});
    ExtractOptions options;
    options.root = root().string();
    options.max_file_bytes = max_file_bytes;
    return extract_requirements(file, options);
  }
};

} // namespace

TEST_CASE("requirement strings are parsed as PEP 508 says", "[manifest][requirements]") {
  std::string error;
  auto torch = manifest::parse_requirement("Torch==2.1.0+cu118 ; sys_platform == 'linux'", error);
  REQUIRE(torch);
  CHECK(torch->name == "Torch");
  CHECK(torch->version == "2.1.0+cu118");
  CHECK(torch->local_version == "cu118");
  CHECK(torch->marker == "sys_platform == 'linux'");

  auto jax = manifest::parse_requirement("jax[cuda12, tpu] >= 0.4", error);
  REQUIRE(jax);
  CHECK(jax->extras == "cuda12,tpu");
  CHECK(jax->specifier == ">=0.4");
  CHECK(jax->version.empty());

  auto url = manifest::parse_requirement(
      "https://download.pytorch.org/whl/cu118/torch-2.0.0%2Bcu118-cp310-cp310-linux_x86_64.whl", error);
  REQUIRE(url);
  CHECK(url->name == "torch");
  CHECK(url->local_version == "cu118");

  // A VCS link without #egg= is valid for pip: the repository names it.
  for (const char *link :
       {"git+https://github.com/org/submitit", "git+https://github.com/org/submitit.git@v1.0",
        "git+ssh://git@github.com/org/submitit.git#subdirectory=py"}) {
    INFO(link);
    const auto vcs = manifest::parse_requirement(link, error);
    REQUIRE(vcs);
    CHECK(vcs->name == "submitit");
  }

  CHECK_FALSE(manifest::parse_requirement("./local/path", error));
  CHECK_FALSE(manifest::parse_requirement("torch 2.0", error));
}

TEST_CASE("markers are evaluated for an Apple-Silicon Mac", "[manifest][requirements]") {
  using manifest::evaluate_marker_on_mac;
  using manifest::MarkerOutcome;
  CHECK(evaluate_marker_on_mac("sys_platform == 'linux'") == MarkerOutcome::False);
  CHECK(evaluate_marker_on_mac("sys_platform != \"darwin\"") == MarkerOutcome::False);
  CHECK(evaluate_marker_on_mac("platform_system == 'Linux' or platform_machine == 'x86_64'") ==
        MarkerOutcome::False);
  CHECK(evaluate_marker_on_mac("sys_platform == 'darwin'") == MarkerOutcome::True);
  CHECK(evaluate_marker_on_mac("python_version >= '3.8'") == MarkerOutcome::Unknown);
  CHECK(evaluate_marker_on_mac("python_version >= '3.8' and sys_platform == 'linux'") ==
        MarkerOutcome::False);
  CHECK(evaluate_marker_on_mac("(sys_platform == 'linux' or sys_platform == 'win32') and extra == 'gpu'") ==
        MarkerOutcome::False);
  CHECK(evaluate_marker_on_mac("'linux' in sys_platform") == MarkerOutcome::False);
  CHECK(evaluate_marker_on_mac("((((") == MarkerOutcome::Unknown);
}

TEST_CASE("CUDA tags are found in index and wheel URLs", "[manifest][requirements]") {
  CHECK(manifest::cuda_tag_of("https://download.pytorch.org/whl/cu118") == "cu118");
  CHECK(manifest::cuda_tag_of("https://data.pyg.org/whl/torch-2.0.0+cu118.html") == "cu118");
  CHECK(manifest::cuda_tag_of("https://download.pytorch.org/whl/cpu") == "");
  CHECK(manifest::cuda_tag_of("https://pypi.nvidia.com") == "nvidia");
  CHECK(manifest::cuda_tag_of("https://storage.googleapis.com/jax-releases/jax_cuda_releases.html") ==
        "cuda");
  CHECK(manifest::cuda_tag_of("https://pypi.org/simple") == "");
}

TEST_CASE("requirements lines give dependency and index facts", "[manifest][requirements]") {
  const FileFacts facts = read_requirements("# comment\n"
                                            "--extra-index-url https://download.pytorch.org/whl/cu118\n"
                                            "torch==2.1.0+cu118  # pinned\n"
                                            "Flash_Attn>=2.0 ; sys_platform == 'linux'\n"
                                            "numpy \\\n"
                                            "    >=1.24 \\\n"
                                            "    --hash=sha256:abc\n"
                                            "-e git+https://github.com/org/repo.git#egg=my_pkg\n"
                                            "-e .\n");
  CHECK(facts.diagnostics.empty());
  const Fact &index = required_fact(facts, "package-index", "https://download.pytorch.org/whl/cu118");
  CHECK(index.span.line == 2);
  check_attributes(index, {{"cuda_tag", "cu118"}, {"option", "extra-index-url"}});

  const Fact &torch = required_fact(facts, "dependency", "torch");
  check_position(torch, 3, 1);
  check_attributes(torch, {{"local_version", "cu118"}, {"source", "requirements"}});
  CHECK(torch.guard == Guard::None);

  const Fact &flash = required_fact(facts, "dependency", "flash-attn");
  CHECK(flash.guard == Guard::PlatformCheck);
  check_attributes(flash, {{"mac", "excluded"}, {"mac_status", "none"}});

  const Fact &numpy = required_fact(facts, "dependency", "numpy");
  CHECK(numpy.span.line == 5);
  CHECK(attribute_or_empty(numpy, "specifier") == ">=1.24");

  const Fact &editable = required_fact(facts, "dependency", "my-pkg");
  CHECK(attribute_or_empty(editable, "editable") == "true");
  CHECK(facts_of(facts, "dependency").size() == 4);
}

TEST_CASE("unknown requirements options give a diagnostic and reading goes on",
          "[manifest][requirements][malformed]") {
  const FileFacts facts = read_requirements("torch\n--no-such-option value\nxformers --bogus\ntriton\n");
  const Diagnostic *unknown = diagnostic_with_code(facts, "unknown-option");
  REQUIRE(unknown);
  CHECK(unknown->path == "requirements.txt");
  CHECK(unknown->line == 2);
  CHECK(facts.diagnostics.size() == 2);
  CHECK(facts.diagnostics[1].line == 3);
  CHECK(fact_of(facts, "dependency", "triton"));
  CHECK(fact_of(facts, "dependency", "xformers"));
}

TEST_CASE("invalid requirement lines are diagnosed with their line", "[manifest][requirements][malformed]") {
  const FileFacts facts = read_requirements("torch\n???\nnumpy\n");
  const Diagnostic *invalid = diagnostic_with_code(facts, "invalid-requirement");
  REQUIRE(invalid);
  CHECK(invalid->line == 2);
  CHECK(facts_of(facts, "dependency").size() == 2);
}

TEST_CASE("constraints files name their source", "[manifest][requirements]") {
  const FileFacts facts = read_requirements("torch==2.1.0+cu121\n", "constraints.txt");
  const Fact &torch = required_fact(facts, "dependency", "torch");
  CHECK(attribute_or_empty(torch, "source") == "constraints");
}

TEST_CASE("requirements include cycles are detected", "[manifest][requirements][malformed]") {
  const RequirementsTree dir;
  dir.write("requirements.txt", "numpy\n-r requirements/base.txt\n");
  dir.write("requirements/base.txt", "scipy\n-r ../requirements.txt\n");
  const FileFacts top = dir.extract("requirements.txt");
  const Diagnostic *cycle = diagnostic_with_code(top, "include-cycle");
  REQUIRE(cycle);
  CHECK(cycle->line == 2);
  CHECK(cycle->path == "requirements.txt");
  CHECK(cycle->message.find("base.txt") != std::string::npos);
  CHECK(fact_of(top, "dependency", "numpy"));

  const FileFacts base = dir.extract("requirements/base.txt");
  REQUIRE(diagnostic_with_code(base, "include-cycle"));
  CHECK(diagnostic_with_code(base, "include-cycle")->line == 2);
  CHECK(fact_of(base, "dependency", "scipy"));
}

TEST_CASE("an include cycle hides neither the facts nor the refused includes of its files",
          "[manifest][requirements][security]") {
  const RequirementsTree dir;
  dir.write("requirements.txt", "numpy\n-r deps.txt\n");
  dir.write("deps.txt", "torch==2.1.0+cu118\n-r requirements.txt\n-r /dev/zero\n-r gpu.in\n");
  dir.write("gpu.in", "flash-attn\n-r requirements-gpu.txt\n");
  dir.write("requirements-gpu.txt", "xformers\n-r deps.txt\n");
  const FileFacts top = dir.extract("requirements.txt");
  REQUIRE(diagnostic_with_code(top, "include-cycle"));
  const Fact *torch = fact_of(top, "dependency", "torch");
  REQUIRE(torch);
  CHECK(torch->span.line == 2);
  CHECK(fact_of(top, "dependency", "flash-attn"));
  // requirements-gpu.txt is scanned on its own: its facts are not repeated here.
  CHECK_FALSE(fact_of(top, "dependency", "xformers"));
  const Diagnostic *zero = diagnostic_with_code(top, "include-outside-root");
  REQUIRE(zero);
  CHECK(zero->level == DiagnosticLevel::Error);
  CHECK(zero->path == "deps.txt");
  CHECK(zero->line == 3);
  CHECK(facts_of(top, "dependency", "torch").size() == 1);
}

TEST_CASE("missing includes are diagnosed; other includes are inlined", "[manifest][requirements]") {
  const RequirementsTree dir;
  dir.write("requirements.txt", "-r deps/gpu.in\n-c missing.txt\n-r requirements-dev.txt\n");
  dir.write("deps/gpu.in", "flash-attn==2.5.0\n-r more.in\n");
  dir.write("deps/more.in", "xformers\n");
  dir.write("requirements-dev.txt", "pytest\n");
  const FileFacts facts = dir.extract("requirements.txt");
  const Diagnostic *missing = diagnostic_with_code(facts, "missing-include");
  REQUIRE(missing);
  CHECK(missing->line == 2);
  // deps/gpu.in is not a requirements file name, so its facts are reported
  // at the include; requirements-dev.txt is scanned on its own.
  const Fact &flash = required_fact(facts, "dependency", "flash-attn");
  CHECK(flash.span.line == 1);
  CHECK(attribute_or_empty(flash, "included_from") == "deps/gpu.in");
  CHECK(fact_of(facts, "dependency", "xformers"));
  CHECK_FALSE(fact_of(facts, "dependency", "pytest"));
}

// Includes are attacker-controlled when the tree is (docs/security.md): each
// must be a regular file inside the scanned tree, within --max-file-size.
TEST_CASE("includes outside the scanned tree are reported and not read",
          "[manifest][requirements][security]") {
  const RequirementsTree dir;
  dir.write("requirements.txt", "numpy\n-r ../../../../../../etc/passwd\n-r /dev/zero\n-c /dev/stdin\n");
  const auto started = std::chrono::steady_clock::now();
  const FileFacts facts = dir.extract("requirements.txt");
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(10));
  std::vector<std::uint32_t> lines;
  for (const auto &diagnostic : facts.diagnostics)
    if (diagnostic.code == "include-outside-root") {
      CHECK(diagnostic.level == DiagnosticLevel::Error);
      CHECK(diagnostic.path == "requirements.txt");
      lines.push_back(diagnostic.line);
    }
  CHECK(lines == std::vector<std::uint32_t>{2, 3, 4});
  CHECK(facts.facts.size() == 1); // numpy; nothing from /etc/passwd
}

TEST_CASE("a symlink out of the tree, a FIFO and a directory are not followed",
          "[manifest][requirements][security]") {
  const RequirementsTree dir;
  dir.write("requirements.txt", "-r passwd.in\n-r pipe.in\n-r deps\n");
  fs::create_directories(dir.root() / "deps");
  fs::create_symlink("/etc/passwd", dir.root() / "passwd.in");
  REQUIRE(::mkfifo((dir.root() / "pipe.in").c_str(), 0600) == 0);
  const auto started = std::chrono::steady_clock::now();
  const FileFacts facts = dir.extract("requirements.txt");
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(10));
  const Diagnostic *outside = diagnostic_with_code(facts, "include-outside-root");
  REQUIRE(outside);
  CHECK(outside->line == 1);
  CHECK(outside->message.find("/etc/passwd") != std::string::npos);
  std::vector<std::uint32_t> not_regular;
  for (const auto &diagnostic : facts.diagnostics)
    if (diagnostic.code == "include-not-regular")
      not_regular.push_back(diagnostic.line);
  CHECK(not_regular == std::vector<std::uint32_t>{2, 3});
  CHECK(facts.facts.empty());
}

TEST_CASE("a refused nested include is reported at the file and line that name it",
          "[manifest][requirements][security]") {
  const RequirementsTree dir;
  dir.write("requirements.txt", "-r deps/gpu.in\n");
  dir.write("deps/gpu.in", "flash-attn==2.5.0\n-r ../../escape.txt\n");
  const FileFacts facts = dir.extract("requirements.txt");
  const Diagnostic *outside = diagnostic_with_code(facts, "include-outside-root");
  REQUIRE(outside);
  CHECK(outside->path == "deps/gpu.in");
  CHECK(outside->line == 2);
  CHECK(outside->message.find("-r deps/gpu.in") != std::string::npos);
  CHECK(fact_of(facts, "dependency", "flash-attn")); // the rest of the chain is still read
}

TEST_CASE("includes over the size limit, too deep or too many are cut with a diagnostic",
          "[manifest][requirements][security]") {
  const RequirementsTree dir;
  dir.write("requirements.txt", "-r big.in\n");
  dir.write("big.in", "numpy\n" + std::string(300, '#') + "\n");
  const FileFacts limited = dir.extract("requirements.txt", 200);
  const Diagnostic *large = diagnostic_with_code(limited, "include-too-large");
  REQUIRE(large);
  CHECK(large->level == DiagnosticLevel::Warning);
  CHECK(large->line == 1);

  // A chain 100 files deep: the first levels are inlined, the rest reported.
  dir.write("deep.txt", "-r d0.in\n");
  for (int i = 0; i < 100; ++i)
    dir.write("d" + std::to_string(i) + ".in",
              "pkg" + std::to_string(i) + "\n-r d" + std::to_string(i + 1) + ".in\n");
  const auto started = std::chrono::steady_clock::now();
  const FileFacts deep = dir.extract("deep.txt");
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(10));
  const Diagnostic *limit = diagnostic_with_code(deep, "include-limit");
  REQUIRE(limit);
  CHECK(fact_of(deep, "dependency", "pkg0"));
  CHECK(fact_of(deep, "dependency", "pkg30"));
  CHECK_FALSE(fact_of(deep, "dependency", "pkg99"));

  // 300 includes of distinct files: one file's include graph stops at 256.
  std::string many;
  for (int i = 0; i < 300; ++i) {
    dir.write("many/m" + std::to_string(i) + ".in", "numpy\n");
    many += "-r many/m" + std::to_string(i) + ".in\n";
  }
  dir.write("many.txt", many);
  const FileFacts wide = dir.extract("many.txt");
  const Diagnostic *cut = diagnostic_with_code(wide, "include-limit");
  REQUIRE(cut);
  CHECK(cut->line == 257);
}
