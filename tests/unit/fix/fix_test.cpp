// `mpsaudit fix`: each fix kind on in-memory files, with the repository's
// own rules and rules/fixes.toml; safety classes; idempotency; what fix
// must leave alone; the fixes catalog, edits and diffs.
#include <catch2/catch.hpp>

#include <set>

#include "../test_support.h"
#include "fix/fix.h"
#include "fix/fix_kind.h"

using namespace mpsaudit;
using mpsaudit::testing::extract;
using mpsaudit::testing::findings_for;
using mpsaudit::testing::repository_catalog;

namespace {

const FixCatalog &repository_fixes() {
  static const FixCatalog catalog = [] {
    std::vector<Diagnostic> diagnostics;
    FixCatalog loaded = FixCatalog::load_file(testing::rules_directory() + "/fixes.toml", diagnostics);
    for (const auto &diagnostic : diagnostics)
      FAIL(diagnostic.path << ":" << diagnostic.line << ": " << diagnostic.message);
    return loaded;
  }();
  return catalog;
}

SourceFix run_fix(const std::string &text, FixOptions options = {}, FileKind kind = FileKind::Python,
                  const std::string &path = "example.py") {
  const auto findings = findings_for(kind, text, path);
  const FileFacts facts = extract(kind, text, path);
  return fix_source(path, kind, text, findings, &facts, repository_fixes(), options);
}

// The fixed text; checks on the way that fixing it again changes nothing.
std::string fixed(const std::string &text, FixOptions options = {}, FileKind kind = FileKind::Python,
                  const std::string &path = "example.py") {
  const SourceFix first = run_fix(text, options, kind, path);
  const SourceFix second = run_fix(first.fixed, options, kind, path);
  INFO("after one fix:\n" << first.fixed);
  CHECK(second.fixed == first.fixed); // idempotent
  CHECK(second.applied.empty());
  return first.fixed;
}

FixOptions unsafe() {
  FixOptions options;
  options.include_unsafe = true;
  return options;
}

FixOptions only_rules(std::set<std::string> rules) {
  FixOptions options;
  options.rules = std::move(rules);
  return options;
}

FixOptions target(const std::string &release, bool include_unsafe = false) {
  FixOptions options;
  options.target_torch = release;
  options.include_unsafe = include_unsafe;
  return options;
}

std::set<std::string> rules_of(const std::vector<Finding> &findings) {
  std::set<std::string> ids;
  for (const auto &finding : findings)
    if (finding.guard == Guard::None && !finding.suppressed)
      ids.insert(finding.rule_id);
  return ids;
}

} // namespace

TEST_CASE("every fix names a rule of the catalog and a registered fix kind", "[fix][catalog]") {
  std::set<std::string> used_kinds;
  REQUIRE(!repository_fixes().definitions().empty());
  for (const auto &definition : repository_fixes().definitions()) {
    INFO(definition.origin);
    const Rule *rule = repository_catalog().find(definition.rule_id);
    REQUIRE(rule != nullptr);
    const FixKindEntry *kind = fix_registry().find(definition.kind);
    REQUIRE(kind != nullptr);
    used_kinds.insert(definition.kind);
    for (FileKind file_kind : kind->file_kinds)
      CHECK(rule->applies_to(file_kind));
    CHECK(!definition.summary.empty());
  }
  for (const auto &[name, entry] : fix_registry().kinds()) {
    INFO(name);
    CHECK(used_kinds.count(name) == 1);
  }
}

TEST_CASE("the fixes file rejects unknown keys, kinds and safety classes", "[fix][catalog]") {
  FixCatalog catalog;
  std::vector<Diagnostic> diagnostics;
  catalog.load_text(R"([[fix]]
rule = "MPS201"
kind = "dot-cuda-to-device"
safety = "safe"
summary = "ok"

[[fix]]
rule = "MPS201"
kind = "no-such-kind"
safety = "safe"
summary = "unknown kind"

[[fix]]
rule = "MPS205"
kind = "torch-load-map-location"
safety = "maybe"
summary = "bad class"

[[fix]]
rule = "MPS205"
kind = "torch-load-map-location"
safety = "unsafe"
summary = "typo below"
sumary = "x"
)",
                    "fixes.toml", diagnostics);
  REQUIRE(diagnostics.size() == 3);
  CHECK(diagnostics[0].message.find("no-such-kind") != std::string::npos);
  CHECK(diagnostics[0].line == 9);
  CHECK(diagnostics[1].message.find("maybe") != std::string::npos);
  CHECK(diagnostics[2].message.find("sumary") != std::string::npos);
  // Good entries are kept; an entry with an unknown key still loads.
  CHECK(catalog.definitions().size() == 2);

  std::vector<Diagnostic> broken;
  catalog.load_text("[[fix]\nrule =", "broken.toml", broken);
  CHECK(broken.size() == 1);
}

TEST_CASE("the fixes file's release table raises min_torch and needs sources", "[fix][catalog]") {
  FixCatalog catalog;
  std::vector<Diagnostic> diagnostics;
  catalog.load_text(R"([[release]]
feature = "autocast-mps"
min_torch = "2.5"
summary = "autocast on MPS"
sources = ["somewhere"]

[[release]]
feature = "unsourced"
min_torch = "2.0"
summary = "no sources"

[[fix]]
rule = "MPS109"
kind = "amp-autocast"
safety = "unsafe"
min_torch = "1.10"
requires = ["autocast-mps"]
summary = "ok"

[[fix]]
rule = "MPS109"
kind = "amp-autocast"
safety = "unsafe"
requires = ["no-such-feature"]
summary = "unknown feature"
)",
                    "fixes.toml", diagnostics);
  REQUIRE(diagnostics.size() == 2);
  CHECK(diagnostics[0].message.find("needs sources") != std::string::npos);
  CHECK(diagnostics[1].message.find("no-such-feature") != std::string::npos);
  REQUIRE(catalog.definitions().size() == 1);
  CHECK(catalog.definitions().front().min_torch == "2.5");
  CHECK(catalog.definitions().front().min_torch_why == "autocast on MPS");
  REQUIRE(catalog.release("autocast-mps"));
  CHECK(catalog.release("unsourced") == nullptr);
  // Every feature the repository's fix kinds ask for is in rules/fixes.toml.
  for (const char *feature : {"autocast-mps", "autocast-mps-bfloat16", "grad-scaler-mps", "bfloat16-mps"})
    CHECK(repository_fixes().release(feature) != nullptr);
}

TEST_CASE("releases compare numerically", "[fix]") {
  CHECK(compare_releases("2.4", "2.6") < 0);
  CHECK(compare_releases("2.11", "2.6") > 0);
  CHECK(compare_releases("2.6.0", "2.6") == 0);
  CHECK(compare_releases("2.6.1", "2.6") > 0);
  CHECK(compare_releases("1.13.1", "2.0") < 0);
  CHECK(compare_releases("2.6.0rc1", "2.6") == 0);
}

TEST_CASE("edits apply in order and overlaps are detected", "[fix][edits]") {
  const std::string text = "abcdef";
  CHECK(apply_edits(text, {{4, 4, "X"}, {1, 3, "__"}, {4, 4, "Y"}}) == "a__dXYef");
  CHECK(apply_edits(text, {{2, 4, "-"}, {2, 2, "+"}}) == "ab+-ef");
  CHECK(edits_overlap({1, 3, ""}, {2, 4, ""}));
  CHECK_FALSE(edits_overlap({1, 3, ""}, {3, 4, ""}));
  CHECK(edits_overlap({2, 2, "x"}, {1, 3, ""}));
  CHECK_FALSE(edits_overlap({1, 1, "x"}, {1, 3, ""}));
  CHECK_FALSE(edits_overlap({2, 2, "x"}, {2, 2, "y"}));
}

TEST_CASE("unified diffs", "[fix][diff]") {
  CHECK(unified_diff("a.py", "same\n", "same\n").empty());
  CHECK(unified_diff("a.py", "1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nfive\n6\n7\n8\n9\n") ==
        "--- a/a.py\n+++ b/a.py\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n");
  CHECK(unified_diff("r.txt", "a\nb", "a\nc") ==
        "--- a/r.txt\n+++ b/r.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline "
        "at end of file\n");
  // Two changes far apart make two hunks; an insertion shows as + only.
  std::string before, after;
  for (int i = 1; i <= 20; ++i) {
    before += std::to_string(i) + "\n";
    after +=
        (i == 2 ? std::string("new\n") : std::string()) + (i == 18 ? "eighteen" : std::to_string(i)) + "\n";
  }
  const std::string diff = unified_diff("f", before, after);
  CHECK(diff.find("@@ -1,4 +1,5 @@\n 1\n+new\n 2\n") != std::string::npos);
  CHECK(diff.find("@@ -15,6 +16,6 @@\n") != std::string::npos);
}

TEST_CASE("device selection gets an MPS branch after the CUDA branch", "[fix][MPS203]") {
  CHECK(fixed("import torch\ndevice = \"cuda\" if torch.cuda.is_available() else \"cpu\"  # pick\n") ==
        "import torch\ndevice = \"cuda\" if torch.cuda.is_available() else \"mps\" if "
        "torch.backends.mps.is_available() else \"cpu\"  # pick\n");
  CHECK(fixed("import torch as th\ndev = th.device('cuda:0' if th.cuda.is_available() else 'cpu')\n") ==
        "import torch as th\ndev = th.device('cuda:0' if th.cuda.is_available() else 'mps' if "
        "th.backends.mps.is_available() else 'cpu')\n");
  const std::string statement = "import torch\n"
                                "\n"
                                "def pick():\n"
                                "    if torch.cuda.is_available():\n"
                                "        device = torch.device(\"cuda\")  # the GPU\n"
                                "    else:\n"
                                "        device = torch.device(\"cpu\")\n"
                                "    return device\n";
  CHECK(fixed(statement) == "import torch\n"
                            "\n"
                            "def pick():\n"
                            "    if torch.cuda.is_available():\n"
                            "        device = torch.device(\"cuda\")  # the GPU\n"
                            "    elif torch.backends.mps.is_available():\n"
                            "        device = torch.device(\"mps\")  # the GPU\n"
                            "    else:\n"
                            "        device = torch.device(\"cpu\")\n"
                            "    return device\n");
  const SourceFix result = run_fix(statement);
  REQUIRE(result.applied.size() == 1);
  CHECK(result.applied.front().safety == FixSafety::Safe);
  CHECK(rules_of(findings_for(FileKind::Python, result.fixed, "example.py")).count("MPS203") == 0);

  // No else: the branch goes after the last clause.
  CHECK(fixed("import torch\ndevice = 'cpu'\nif torch.cuda.is_available():\n    device = "
              "'cuda'\nprint(device)\n") ==
        "import torch\ndevice = 'cpu'\nif torch.cuda.is_available():\n    device = 'cuda'\n"
        "elif torch.backends.mps.is_available():\n    device = 'mps'\nprint(device)\n");
}

TEST_CASE("a selection that reads the user's choice asks it about MPS, not MPS's availability",
          "[fix][MPS203]") {
  // `--device=cpu` on a Mac must stay the CPU: the MPS branch tests the same
  // variable, in every release (torch.accelerator would pick MPS regardless).
  for (const char *release : {"2.4", "2.11"}) {
    CHECK(fixed("import torch\ndef run(device):\n    kind = \"cuda\" if \"cuda\" in device else \"cpu\"\n",
                target(release)) == "import torch\ndef run(device):\n    kind = \"cuda\" if \"cuda\" in "
                                    "device else \"mps\" if \"mps\" in "
                                    "device else \"cpu\"\n");
  }
  // A condition that asks both is left alone.
  const std::string both =
      "import torch\nd = 'cuda' if torch.cuda.is_available() and 'cuda' in want else 'cpu'\n";
  CHECK(run_fix(both).fixed == both);
}

TEST_CASE("device selection uses torch.accelerator when the target release has it", "[fix][MPS203]") {
  CHECK(fixed("import torch\ndevice = \"cuda\" if torch.cuda.is_available() else \"cpu\"\n", target("2.6")) ==
        "import torch\ndevice = \"cuda\" if torch.cuda.is_available() else "
        "torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else \"cpu\"\n");
  CHECK(fixed("import torch\nif torch.cuda.is_available():\n    d = torch.device('cuda')\nelse:\n    d = "
              "torch.device('cpu')\n",
              target("2.11")) ==
        "import torch\nif torch.cuda.is_available():\n    d = torch.device('cuda')\n"
        "elif torch.accelerator.is_available():\n    d = torch.accelerator.current_accelerator()\n"
        "else:\n    d = torch.device('cpu')\n");
}

TEST_CASE("device selection branches that do more than pick a device are left alone", "[fix][MPS203]") {
  const std::string text = "import torch\n"
                           "if torch.cuda.is_available():\n"
                           "    device = torch.device('cuda')\n"
                           "    torch.cuda.set_device(0)\n"
                           "else:\n"
                           "    device = torch.device('cpu')\n";
  const SourceFix result = run_fix(text);
  CHECK(result.fixed == text);
  REQUIRE(!result.skipped.empty());
  CHECK(result.skipped.front().finding.rule_id == "MPS203");
  // The negated form puts CUDA second: not rewritten.
  const std::string negated = "import torch\ndevice = 'cpu' if not torch.cuda.is_available() else 'cuda'\n";
  CHECK(run_fix(negated).fixed == negated);
}

TEST_CASE(".cuda(non_blocking=True) is non-blocking on CUDA alone; any other value stays", "[fix][MPS201]") {
  const std::string head = "import torch\n"
                           "device = torch.device(\"cuda\" if torch.cuda.is_available() else \"mps\" if "
                           "torch.backends.mps.is_available() else \"cpu\")\n";
  CHECK(fixed(head + "y = x.cuda(non_blocking=True)\n") ==
        head + "y = x.to(device, non_blocking=str(device).startswith(\"cuda\"))\n");
  // The near cases: not the literal True, so no MPS208 and no rewrite of it.
  CHECK(fixed(head + "y = x.cuda(non_blocking=pinned)\n") ==
        head + "y = x.to(device, non_blocking=pinned)\n");
  CHECK(fixed(head + "y = x.cuda(non_blocking=False)\n") == head + "y = x.to(device, non_blocking=False)\n");
  CHECK(fixed(head + "y = x.cuda(memory_format=m, non_blocking=True,)\n") ==
        head + "y = x.to(device, memory_format=m, non_blocking=str(device).startswith(\"cuda\"),)\n");
}

TEST_CASE(".cuda() becomes .to(device)", "[fix][MPS201]") {
  SECTION("a module device is added once when none is in scope") {
    const std::string text = "\"\"\"Train.\"\"\"\n"
                             "import torch\n"
                             "from model import Net\n"
                             "\n"
                             "\n"
                             "def main(x):\n"
                             "    net = Net().cuda()\n"
                             "    return net(x.cuda(non_blocking=True))\n";
    const std::string result = fixed(text);
    CHECK(result == "\"\"\"Train.\"\"\"\n"
                    "import torch\n"
                    "from model import Net\n"
                    "\n"
                    "# One device for this module: CUDA, then Apple MPS, then the CPU (mpsaudit fix).\n"
                    "device = torch.device(\"cuda\" if torch.cuda.is_available() else \"mps\" if "
                    "torch.backends.mps.is_available() else \"cpu\")\n"
                    "\n"
                    "\n"
                    "def main(x):\n"
                    "    net = Net().to(device)\n"
                    "    return net(x.to(device, non_blocking=str(device).startswith(\"cuda\")))\n");
    const SourceFix run = run_fix(text);
    REQUIRE(run.applied.size() == 2);
    CHECK(run.applied[0].safety == FixSafety::Safe);
    // The device line itself adds no finding, nor does the non-blocking
    // copy, now non-blocking on CUDA alone (MPS208's own replacement).
    const auto after = rules_of(findings_for(FileKind::Python, result, "example.py"));
    CHECK(after.count("MPS201") == 0);
    CHECK(after.count("MPS202") == 0);
    CHECK(after.count("MPS208") == 0);
    CHECK(after.count("MPS203") == 0);
  }
  SECTION("a CUDA-first device variable in scope is used: safe") {
    CHECK(fixed("import torch\nDEV = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
                "def f(m):\n    return m.cuda()\n",
                only_rules({"MPS201"})) ==
          "import torch\nDEV = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
          "def f(m):\n    return m.to(DEV)\n");
  }
  SECTION("a device parameter of unknown origin makes the fix unsafe") {
    const std::string text = "def f(m, device):\n    return m.cuda()\n";
    const SourceFix safe_only = run_fix(text);
    CHECK(safe_only.fixed == text);
    REQUIRE(safe_only.skipped.size() == 1);
    CHECK(safe_only.skipped.front().unsafe_withheld);
    CHECK(fixed(text, unsafe()) == "def f(m, device):\n    return m.to(device)\n");
  }
  SECTION("torch is imported when the module lacks it") {
    CHECK(fixed("from model import Net\nnet = Net().cuda()\n") ==
          "from model import Net\nimport torch\n\n"
          "# One device for this module: CUDA, then Apple MPS, then the CPU (mpsaudit fix).\n"
          "device = torch.device(\"cuda\" if torch.cuda.is_available() else \"mps\" if "
          "torch.backends.mps.is_available() else \"cpu\")\n"
          "\n"
          "net = Net().to(device)\n");
  }
  SECTION("device indexes and late local devices are left alone") {
    const std::string index = "def f(m, rank):\n    return m.cuda(rank)\n";
    CHECK(run_fix(index, unsafe()).fixed == index);
    const std::string late = "import torch\ndef f(m):\n    m = m.cuda()\n    device = 'cpu'\n    return m\n";
    const SourceFix result = run_fix(late, unsafe());
    CHECK(result.fixed == late);
    REQUIRE(result.skipped.size() == 1);
    CHECK(result.skipped.front().reason.find("after") != std::string::npos);
  }
}

TEST_CASE("hard-coded CUDA devices become CUDA-first selections", "[fix][MPS202]") {
  CHECK(fixed("import torch\ndev = torch.device(\"cuda:0\")\n") ==
        "import torch\ndev = torch.device(\"cuda:0\" if torch.cuda.is_available() else \"mps\" if "
        "torch.backends.mps.is_available() else \"cpu\")\n");
  CHECK(fixed("import torch\ndef f(m, device='cuda'):\n    return m\n", target("2.6")) ==
        "import torch\ndef f(m, device='cuda' if torch.cuda.is_available() else "
        "torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else 'cpu'):\n"
        "    return m\n");
  // `.to("cuda")` takes the device in scope.
  CHECK(fixed("import torch\nDEVICE = 'cuda' if torch.cuda.is_available() else 'cpu'\nx = y.to('cuda')\n",
              only_rules({"MPS202"})) ==
        "import torch\nDEVICE = 'cuda' if torch.cuda.is_available() else 'cpu'\nx = y.to(DEVICE)\n");
  // Strings that are not device arguments are not findings, and stay.
  const std::string prose = "import torch\nprint('cuda')\nif name == 'cuda':\n    pass\n";
  CHECK(run_fix(prose, unsafe()).fixed == prose);
}

TEST_CASE("torch.cuda.amp becomes torch.amp", "[fix][MPS109]") {
  const std::string text = "import torch\n"
                           "from torch.cuda.amp import GradScaler, autocast\n"
                           "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
                           "scaler = GradScaler()\n"
                           "big = torch.cuda.amp.GradScaler(2.0**10, enabled=True)\n"
                           "with autocast(True, torch.bfloat16):\n"
                           "    pass\n"
                           "with torch.cuda.amp.autocast(enabled=False):\n"
                           "    pass\n";
  const std::string rewritten =
      "import torch\n"
      "from torch.cuda.amp import GradScaler, autocast\n"
      "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
      "scaler = torch.amp.GradScaler(device.type)\n"
      "big = torch.amp.GradScaler(device.type, 2.0**10, enabled=True)\n"
      "with torch.autocast(device_type=device.type, enabled=True, dtype=torch.bfloat16):\n"
      "    pass\n"
      "with torch.autocast(device_type=device.type, enabled=False):\n"
      "    pass\n";
  FixOptions unsafe_at_2_8 = target("2.8", true);
  unsafe_at_2_8.rules = {"MPS109"};
  CHECK(fixed(text, unsafe_at_2_8) == rewritten);
  // Safe alone: a disabled autocast is off on every device. An enabled one
  // would turn CPU autocast on where there is no CUDA, and GradScaler("cpu")
  // would scale the loss there.
  FixOptions safe_at_2_8 = target("2.8");
  safe_at_2_8.rules = {"MPS109"};
  const SourceFix safe_only = run_fix(text, safe_at_2_8);
  REQUIRE(safe_only.applied.size() == 1);
  CHECK(safe_only.applied.front().finding.span.line == 8);
  CHECK(safe_only.applied.front().safety == FixSafety::Safe);
  // A string device variable goes through torch.device(...).type.
  CHECK(fixed("import torch\nd = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
              "s = torch.cuda.amp.GradScaler()\n",
              unsafe_at_2_8) == "import torch\nd = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
                                "s = torch.amp.GradScaler(torch.device(d).type)\n");
}

TEST_CASE("amp on MPS is only written for releases that have it", "[fix][MPS109]") {
  const std::string scaler = "import torch\ns = torch.cuda.amp.GradScaler(enabled=False)\n";
  // torch.amp.GradScaler is 2.3; GradScaler on MPS is 2.8.
  for (const char *release : {"2.2", "2.4", "2.7"}) {
    const SourceFix old = run_fix(scaler, target(release));
    CHECK(old.fixed == scaler);
    REQUIRE(old.skipped.size() == 1);
    CHECK(old.skipped.front().reason.find("needs PyTorch 2.8") != std::string::npos);
    CHECK(old.skipped.front().reason.find(release) != std::string::npos);
  }
  CHECK(run_fix(scaler, target("2.8")).fixed != scaler);
  // autocast on MPS is 2.5, bfloat16 autocast on MPS 2.6.
  const std::string autocast = "import torch\nwith torch.cuda.amp.autocast(enabled=False):\n    pass\n";
  CHECK(run_fix(autocast, target("2.4")).fixed == autocast);
  CHECK(run_fix(autocast, target("2.5")).fixed != autocast);
  const std::string bf16 =
      "import torch\nwith torch.cuda.amp.autocast(enabled=False, dtype=torch.bfloat16):\n    pass\n";
  const SourceFix at_2_5 = run_fix(bf16, target("2.5"));
  CHECK(at_2_5.fixed == bf16);
  REQUIRE(at_2_5.skipped.size() == 1);
  CHECK(at_2_5.skipped.front().reason.find("needs PyTorch 2.6") != std::string::npos);
  CHECK(run_fix(bf16, target("2.6")).fixed != bf16);
}

TEST_CASE("a CUDA autocast device string is gated like autocast itself", "[fix][MPS202]") {
  const std::string text = "import torch\n"
                           "@torch.autocast('cuda', enabled=False)\n"
                           "def f(x):\n"
                           "    return x\n";
  const SourceFix at_2_4 = run_fix(text, target("2.4"));
  CHECK(at_2_4.fixed == text);
  REQUIRE(at_2_4.skipped.size() == 1);
  CHECK(at_2_4.skipped.front().reason.find("needs PyTorch 2.5") != std::string::npos);
  const SourceFix at_2_6 = run_fix(text, target("2.6"));
  REQUIRE(at_2_6.applied.size() == 1);
  CHECK(at_2_6.applied.front().safety == FixSafety::Safe);
  // Enabled, it would turn CPU autocast on without CUDA: unsafe.
  const std::string enabled = "import torch\nwith torch.autocast('cuda'):\n    pass\n";
  CHECK(run_fix(enabled, target("2.6")).fixed == enabled);
  CHECK(run_fix(enabled, target("2.6", true)).fixed != enabled);
  // A bfloat16 tensor on MPS needs 2.3.
  const std::string bf16 = "import torch\nx = torch.zeros(2, dtype=torch.bfloat16, device='cuda')\n";
  CHECK(run_fix(bf16, target("2.2")).fixed == bf16);
  CHECK(run_fix(bf16, target("2.3")).fixed != bf16);
}

TEST_CASE("two device strings in one function are never merged", "[fix][MPS202]") {
  const std::string text = "import torch\n"
                           "def test_cache_keys():\n"
                           "    a = torch.device('cpu')\n"
                           "    b = torch.device('cuda')\n"
                           "    assert a != b\n"
                           "def other():\n"
                           "    return torch.device('cuda')\n";
  const SourceFix result = run_fix(text, unsafe());
  REQUIRE(result.applied.size() == 1);
  CHECK(result.applied.front().finding.span.line == 7);
  REQUIRE(result.skipped.size() == 1);
  CHECK(result.skipped.front().reason.find("tells devices apart") != std::string::npos);
  // A CUDA-first selection names one device: it compares nothing.
  const std::string selection = "import torch\n"
                                "def f():\n"
                                "    d = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
                                "    return torch.device('cuda:0')\n";
  bool device_string_fixed = false;
  for (const auto &applied : run_fix(selection).applied)
    device_string_fixed = device_string_fixed || applied.finding.rule_id == "MPS202";
  CHECK(device_string_fixed);
}

TEST_CASE("code on a CUDA-only branch is left as written", "[fix]") {
  const std::string text = "import torch\n"
                           "def f(x, device, use_trt):\n"
                           "    if device.type == 'cuda':\n"
                           "        y = x.to('cuda')\n"
                           "    if x.is_cuda and use_trt:\n"
                           "        z = x.cuda()\n"
                           "    if use_trt:\n"
                           "        import tensorrt\n"
                           "        w = torch.zeros(2).cuda()\n"
                           "    if not use_trt:\n"
                           "        v = x.cuda()\n"
                           "    return x\n";
  const SourceFix result = run_fix(text, unsafe());
  for (const auto &skip : result.skipped)
    INFO(skip.finding.span.line << ": " << skip.reason);
  std::set<std::uint32_t> fixed_lines;
  for (const auto &applied : result.applied)
    fixed_lines.insert(applied.finding.span.line);
  // Only the branch that may run without CUDA is edited.
  CHECK(fixed_lines == std::set<std::uint32_t>{11});
}

TEST_CASE("test files are left alone unless include_tests", "[fix]") {
  const std::string text = "import torch\nx = torch.zeros(2).cuda()\n";
  FixOptions options;
  options.test_files = {"tests/test_x.py"};
  const SourceFix skipped = run_fix(text, options, FileKind::Python, "tests/test_x.py");
  CHECK(skipped.fixed == text);
  REQUIRE(skipped.skipped.size() == 1);
  CHECK(skipped.skipped.front().reason.find("--include-tests") != std::string::npos);
  options.include_tests = true;
  CHECK(run_fix(text, options, FileKind::Python, "tests/test_x.py").fixed != text);
}

TEST_CASE("torch.load gets map_location, an unsafe fix", "[fix][MPS205]") {
  const std::string text = "import torch\nstate = torch.load(\n    path,\n    weights_only=True,\n)\n";
  const SourceFix safe_only = run_fix(text);
  CHECK(safe_only.fixed == text);
  CHECK(safe_only.skipped.size() == 1);
  CHECK(safe_only.skipped.front().unsafe_withheld);
  CHECK(fixed(text, unsafe()) ==
        "import torch\nstate = torch.load(\n    path,\n    weights_only=True, map_location=\"cpu\",\n)\n");
  const std::string splat = "import torch\nstate = torch.load(path, **options)\n";
  CHECK(run_fix(splat, unsafe()).fixed == splat);
}

TEST_CASE("torch.load straight into load_state_dict gets map_location, a safe fix", "[fix][MPS205]") {
  CHECK(fixed("import torch\nmodel.load_state_dict(torch.load(path))\n"
              "net.load_state_dict(torch.load(p)['model'], strict=False)\n") ==
        "import torch\nmodel.load_state_dict(torch.load(path, map_location=\"cpu\"))\n"
        "net.load_state_dict(torch.load(p, map_location=\"cpu\")['model'], strict=False)\n");
  // assign=True keeps the loaded tensors: on the CPU now, so unsafe.
  const std::string assign = "import torch\nmodel.load_state_dict(torch.load(path), assign=True)\n";
  CHECK(run_fix(assign).fixed == assign);
  CHECK(run_fix(assign, unsafe()).fixed != assign);
}

TEST_CASE("torch.cuda runtime calls become device-agnostic", "[fix][MPS101][MPS102][MPS103]") {
  const std::string text = "import torch\n"
                           "def step():\n"
                           "    torch.cuda.synchronize()  # wait for the GPU\n"
                           "    torch.cuda.empty_cache()\n";
  CHECK(fixed(text) == "import torch\n"
                       "def step():\n"
                       "    if torch.cuda.is_available():\n"
                       "        torch.cuda.synchronize()  # wait for the GPU\n"
                       "    elif torch.backends.mps.is_available():\n"
                       "        torch.mps.synchronize()\n"
                       "    if torch.cuda.is_available():\n"
                       "        torch.cuda.empty_cache()\n"
                       "    elif torch.backends.mps.is_available():\n"
                       "        torch.mps.empty_cache()\n");
  CHECK(fixed(text, target("2.6")) == "import torch\n"
                                      "def step():\n"
                                      "    torch.accelerator.synchronize()  # wait for the GPU\n"
                                      "    if torch.cuda.is_available():\n"
                                      "        torch.cuda.empty_cache()\n"
                                      "    elif torch.backends.mps.is_available():\n"
                                      "        torch.mps.empty_cache()\n");
  const std::string seeds = "import torch\ntorch.cuda.manual_seed_all(0)\ntorch.cuda.manual_seed(seed)\n";
  CHECK(run_fix(seeds).fixed == seeds); // unsafe: reseeds the CPU generator as well
  CHECK(fixed(seeds, unsafe()) == "import torch\ntorch.manual_seed(0)\ntorch.manual_seed(seed)\n");
  // A result that is used, or a call sharing its line, is not wrapped.
  const std::string used = "import torch\nprint(torch.cuda.synchronize())\nif x: torch.cuda.synchronize()\n";
  CHECK(run_fix(used).fixed == used);
}

TEST_CASE("pin_memory=True pins only for CUDA", "[fix][MPS206]") {
  CHECK(fixed("import torch\nfrom torch.utils.data import DataLoader\n"
              "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
              "loader = DataLoader(ds, pin_memory=True, num_workers=2)\n",
              only_rules({"MPS206"})) ==
        "import torch\nfrom torch.utils.data import DataLoader\n"
        "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
        "loader = DataLoader(ds, pin_memory=(device.type == \"cuda\"), num_workers=2)\n");
}

TEST_CASE("NumPy's removed aliases become the builtins they named", "[fix][MPS716]") {
  CHECK(fixed("import numpy as np\n"
              "boxes = np.zeros((0, 4), dtype=np.float)\n"
              "count = np.int(value) + np.int32(1)\n"
              "kinds = arr.astype(np.object)\n"
              "flags = np.zeros(4, dtype=np.bool)\n",
              only_rules({"MPS716"})) == "import numpy as np\n"
                                         "boxes = np.zeros((0, 4), dtype=float)\n"
                                         "count = int(value) + np.int32(1)\n"
                                         "kinds = arr.astype(object)\n"
                                         "flags = np.zeros(4, dtype=np.bool)\n");
  // A file that binds the builtin's name itself: `str` would mean its parameter.
  const std::string shadowed = "import numpy as np\n"
                               "def label(str):\n"
                               "    return np.str(str)\n";
  CHECK(run_fix(shadowed, only_rules({"MPS716"})).fixed == shadowed);
}

TEST_CASE("factories in forward get the input's device", "[fix][MPS204]") {
  const std::string text = "import torch\nimport torch.nn as nn\n\n"
                           "class Head(nn.Module):\n"
                           "    def forward(self, x, mask=None):\n"
                           "        ones = torch.ones(x.shape[0], 1)\n"
                           "        empty = torch.tensor([])\n"
                           "        return x * ones\n";
  CHECK(run_fix(text).fixed == text); // unsafe: the tensor moves off the CPU on CUDA too
  CHECK(fixed(text, unsafe()) == "import torch\nimport torch.nn as nn\n\n"
                                 "class Head(nn.Module):\n"
                                 "    def forward(self, x, mask=None):\n"
                                 "        ones = torch.ones(x.shape[0], 1, device=x.device)\n"
                                 "        empty = torch.tensor([], device=x.device)\n"
                                 "        return x * ones\n");
  const std::string two_inputs = "import torch\nimport torch.nn as nn\n\n"
                                 "class Pair(nn.Module):\n"
                                 "    def forward(self, a, b):\n"
                                 "        return a + torch.zeros(3)\n";
  CHECK(run_fix(two_inputs, unsafe()).fixed == two_inputs);
  const std::string annotated = "import torch\nimport torch.nn as nn\n\n"
                                "class Pair(nn.Module):\n"
                                "    def forward(self, a: torch.Tensor, n: int):\n"
                                "        return a + torch.zeros(n)\n";
  CHECK(fixed(annotated, unsafe()).find("torch.zeros(n, device=a.device)") != std::string::npos);
}

TEST_CASE("requirements: CUDA pins get platform markers", "[fix][MPS701]") {
  const std::string text = "torch==2.1.0+cu118  # CUDA 11.8\n"
                           "torchvision==0.16.0+cu118; python_version >= \"3.8\"\n"
                           "numpy\n";
  CHECK(fixed(text, {}, FileKind::Requirements, "requirements.txt") ==
        "torch==2.1.0+cu118; sys_platform != \"darwin\"  # CUDA 11.8\n"
        "torch==2.1.0; sys_platform == \"darwin\"\n"
        "torchvision==0.16.0+cu118; (python_version >= \"3.8\") and sys_platform != \"darwin\"\n"
        "torchvision==0.16.0; (python_version >= \"3.8\") and sys_platform == \"darwin\"\n"
        "numpy\n");
  // An existing macOS line is not duplicated; hashes belong to the CUDA build.
  const std::string mac = "torch==2.1.0+cu118\ntorch==2.1.0; sys_platform == \"darwin\"\n";
  CHECK(fixed(mac, {}, FileKind::Requirements, "requirements.txt") ==
        "torch==2.1.0+cu118; sys_platform != \"darwin\"\ntorch==2.1.0; sys_platform == \"darwin\"\n");
  const std::string hashed = "torch==2.1.0+cu118 --hash=sha256:abc\n";
  CHECK(run_fix(hashed, {}, FileKind::Requirements, "requirements.txt").fixed == hashed);
}

TEST_CASE("requirements: CUDA indexes are marked Linux and Windows only", "[fix][MPS702]") {
  const std::string extra = "--extra-index-url https://download.pytorch.org/whl/cu121\ntorch\n";
  const std::string marked = fixed(extra, {}, FileKind::Requirements, "requirements.txt");
  CHECK(marked ==
        "# mpsaudit: ignore[MPS702] CUDA wheels for Linux and Windows only; macOS installs from PyPI\n" +
            extra);
  const std::string replacing = "--index-url https://download.pytorch.org/whl/cu121\ntorch\n";
  CHECK(run_fix(replacing, {}, FileKind::Requirements, "requirements.txt").fixed == replacing);
  CHECK(fixed(replacing, unsafe(), FileKind::Requirements, "requirements.txt") ==
        "# mpsaudit: ignore[MPS702] CUDA wheels for Linux and Windows only; macOS installs from PyPI\n"
        "--extra-index-url https://download.pytorch.org/whl/cu121\ntorch\n");
}

TEST_CASE("fix never touches strings, comments or guarded code", "[fix][negative]") {
  const std::string text = "import torch\n"
                           "HELP = \"call x.cuda() then torch.cuda.synchronize(); torch.load(p)\"\n"
                           "# net.cuda() and torch.cuda.empty_cache() here are prose\n"
                           "def f(net, x):\n"
                           "    if torch.cuda.is_available():\n"
                           "        net = net.cuda()\n"
                           "        torch.cuda.synchronize()\n"
                           "        torch.cuda.manual_seed_all(0)\n"
                           "    try:\n"
                           "        import apex\n"
                           "    except ImportError:\n"
                           "        apex = None\n"
                           "    return net(x)\n";
  const SourceFix result = run_fix(text, unsafe());
  CHECK(result.fixed == text);
  CHECK(result.applied.empty());
  for (const auto &skip : result.skipped) {
    // The guard is itself a device choice without MPS (MPS203), which fix
    // leaves alone: its CUDA branch moves with .cuda() and names no device.
    if (skip.finding.rule_id == "MPS203")
      CHECK(skip.reason == "the CUDA branch names no CUDA device");
    else
      CHECK(skip.reason.find("guarded") != std::string::npos);
  }
  // Fixing real code on a line leaves its string and comment as they are.
  CHECK(fixed("import torch\nx = y.cuda()  # not z.cuda()\nmsg = 'w.cuda()'\n") ==
        "import torch\n\n"
        "# One device for this module: CUDA, then Apple MPS, then the CPU (mpsaudit fix).\n"
        "device = torch.device(\"cuda\" if torch.cuda.is_available() else \"mps\" if "
        "torch.backends.mps.is_available() else \"cpu\")\n\n"
        "x = y.to(device)  # not z.cuda()\nmsg = 'w.cuda()'\n");
}

TEST_CASE("files with syntax errors are not edited", "[fix][negative]") {
  const std::string text = "import torch\nx = y.cuda()\ndef broken(:\n    pass\n";
  const SourceFix result = run_fix(text, unsafe());
  CHECK(result.fixed == text);
  REQUIRE(result.skipped.size() == 1);
  CHECK(result.skipped.front().reason.find("syntax errors") != std::string::npos);
}

// The binding search once recursed into nested assignment patterns and
// overflowed the stack on this (a release build crashed at 100,000 levels).
TEST_CASE("deeply nested assignment targets do not exhaust the stack", "[fix][robustness]") {
  const std::string text = "import torch\n" + std::string(100000, '(') + "a" + [] {
    std::string closing;
    for (int i = 0; i < 100000; ++i)
      closing += ",)";
    return closing;
  }() + " = 1\ny = x.cuda()\n";
  const SourceFix result = run_fix(text);
  CHECK(result.fixed.find("y = x.to(device)") != std::string::npos);
}

TEST_CASE("the --rule option limits the fixes", "[fix]") {
  const std::string text = "import torch\ntorch.cuda.synchronize()\ntorch.cuda.empty_cache()\n";
  FixOptions options;
  options.rules = {"MPS102"};
  const SourceFix result = run_fix(text, options);
  REQUIRE(result.applied.size() == 1);
  CHECK(result.applied.front().finding.rule_id == "MPS102");
  CHECK(result.fixed.find("torch.mps.empty_cache()") != std::string::npos);
  CHECK(result.fixed.find("torch.mps.synchronize()") == std::string::npos);
}

TEST_CASE("fix_available tells the effort model what fix can do", "[fix][effort]") {
  const auto findings = findings_for(FileKind::Python,
                                     "import torch\n"
                                     "net = Net().cuda()\n"
                                     "state = torch.load('a.pt')\n"
                                     "torch.cuda.ipc_collect()\n"
                                     "if torch.cuda.is_available():\n"
                                     "    torch.cuda.synchronize()\n",
                                     "example.py");
  std::map<std::string, std::optional<FixSafety>> by_rule;
  for (const auto &finding : findings)
    by_rule[finding.rule_id] = fix_available(finding, repository_fixes());
  REQUIRE(by_rule.count("MPS201"));
  CHECK(by_rule["MPS201"] == FixSafety::Safe);
  CHECK(by_rule["MPS205"] == FixSafety::Unsafe); // the class; one edit may be shown safe
  CHECK_FALSE(by_rule["MPS112"].has_value());    // no fix for other torch.cuda APIs
  CHECK_FALSE(by_rule["MPS101"].has_value());    // guarded: left as written
  // GradScaler on MPS needs 2.8; notebooks are not edited.
  const auto scaler =
      findings_for(FileKind::Python, "import torch\ns = torch.cuda.amp.GradScaler()\n", "e.py");
  REQUIRE(scaler.size() == 1);
  CHECK(fix_available(scaler.front(), repository_fixes(), "2.4") == std::nullopt);
  CHECK(fix_available(scaler.front(), repository_fixes(), "2.8") == FixSafety::Unsafe);
  Finding in_notebook = findings.front();
  in_notebook.file_kind = FileKind::Notebook;
  CHECK(fix_available(in_notebook, repository_fixes()) == std::nullopt);
}
