// Discovery of checkpoints whose names do not say so: a name other formats
// share (.pkl, .pickle, .model) or the first bytes of a format torch.load
// reads make a file a checkpoint whose kind is guessed; it is listed both
// as a file and, for the scan to keep if the guess is refuted, as skipped.
#include <algorithm>
#include <filesystem>
#include <map>
#include <string>

#include <catch2/catch.hpp>
#include <sys/stat.h>
#include <unistd.h>

#include "../scratch_tree.h"
#include "../test_support.h"
#include "core/source.h"
#include "scan/discover.h"
#include "scan/scan.h"

using namespace mpsaudit;
namespace fs = std::filesystem;

namespace {

const std::string kPickle("\x80\x02}q\x00.", 6); // protocol 2: an empty dict

} // namespace

TEST_CASE("names: .pth.tar is a checkpoint, .pkl .pickle .model are candidates", "[scan][discovery]") {
  CHECK(classify_path("runs/model_best.pth.tar") == FileKind::Checkpoint);
  CHECK(classify_path("CHECKPOINT.PTH.TAR") == FileKind::Checkpoint);
  CHECK(classify_path("data/archive.tar") == FileKind::Unknown);
  for (const char *name : {"x.pkl", "a/b.PICKLE", "tokenizer.model"}) {
    CHECK(classify_path(name) == FileKind::Unknown);
    CHECK(has_checkpoint_candidate_name(name));
  }
  CHECK_FALSE(has_checkpoint_candidate_name("model.py"));
  CHECK_FALSE(has_checkpoint_candidate_name("pkl/readme"));
}

TEST_CASE("files that may be checkpoints are listed as guessed, and as skipped", "[scan][discovery]") {
  const testing::ScratchTree tree("mpsaudit-guess");
  tree.write("ckpt", kPickle);                                       // by its bytes
  tree.write("weights/state.dat", kPickle);                          // by its bytes, in a folder
  tree.write("tokenizer.model", "a text vocabulary\n");              // by its name
  tree.write("notes.csv", "a,b\n1,2\n");                             // neither
  tree.write("model.pt", kPickle);                                   // a checkpoint by name, as before
  REQUIRE(::mkfifo((tree.root() / "queue.pkl").c_str(), 0600) == 0); // never opened
  REQUIRE(::mkfifo((tree.root() / "queue").c_str(), 0600) == 0);
  fs::create_symlink("ckpt", tree.root() / "link"); // a symlink's target is not sniffed through it

  const Discovery discovery = discover_files(tree.root().string(), false);
  std::map<std::string, std::string> files, skipped;
  for (const auto &file : discovery.files)
    files[file.path] = std::string(to_string(file.kind)) + (file.kind_guessed ? " guessed" : "");
  for (const auto &entry : discovery.skipped)
    skipped[entry.path] = entry.reason;
  CHECK(files == std::map<std::string, std::string>{{"ckpt", "checkpoint guessed"},
                                                    {"model.pt", "checkpoint"},
                                                    {"tokenizer.model", "checkpoint guessed"},
                                                    {"weights/state.dat", "checkpoint guessed"}});
  CHECK(skipped == std::map<std::string, std::string>{{"ckpt", "unknown-kind"},
                                                      {"link", "unknown-kind"},
                                                      {"notes.csv", "unknown-kind"},
                                                      {"queue", "unknown-kind"},
                                                      {"queue.pkl", "unknown-kind"},
                                                      {"tokenizer.model", "unknown-kind"},
                                                      {"weights/state.dat", "unknown-kind"}});
}

TEST_CASE("the scan keeps a confirmed guess as a file and a refuted one as skipped", "[scan][discovery]") {
  const testing::ScratchTree tree("mpsaudit-guess");
  tree.write("ckpt", kPickle);
  tree.write("tokenizer.model", "a text vocabulary\n");
  tree.write("config.yaml", std::string("\x80\x02}q\x00.", 6)); // a pickle under a text kind's name
  tree.write("table.yaml", std::string("a: 1\n\0\0", 7));       // binary, no checkpoint
  ScanOptions options;
  options.paths = {tree.root().string()};
  options.use_git = false;
  const ScanResult result = run_scan(options, testing::repository_catalog());
  std::map<std::string, std::string> files, skipped;
  for (const auto &file : result.files)
    files[file.path] = std::string(to_string(file.kind)) + " " + file.mode;
  for (const auto &entry : result.skipped)
    skipped[entry.path] = entry.reason;
  CHECK(files == std::map<std::string, std::string>{{"ckpt", "checkpoint ast"},
                                                    {"config.yaml", "checkpoint ast"},
                                                    {"table.yaml", "model-config skipped"}});
  CHECK(skipped == std::map<std::string, std::string>{{"tokenizer.model", "unknown-kind"}});
  std::map<std::string, std::string> diagnostics;
  for (const auto &diagnostic : result.diagnostics)
    diagnostics[diagnostic.path] += diagnostic.code;
  CHECK(diagnostics == std::map<std::string, std::string>{{"table.yaml", "binary-file"}});
}
