// What a scanned file is: its path, its kind, and its text.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mpsaudit {

// The kind decides which front end reads a file. Discovery assigns it from the
// file name alone, so that a file is never opened twice to classify it.
enum class FileKind : std::uint8_t {
  Python,
  Notebook,
  Cxx,   // .cpp .cc .cxx .h .hpp .mm
  Cuda,  // .cu .cuh
  Metal, // .metal: evidence that a Metal port exists
  Cmake,
  Requirements,
  Pyproject,
  SetupPy,
  SetupCfg,
  CondaEnv,
  Dockerfile,
  Shell, // shell scripts, Makefiles, Slurm job scripts
  Prose, // README, INSTALL, docs
  Checkpoint,
  ModelConfig, // config.json, *.yaml: model hyper-parameters for the memory-fit estimate
  GitModules,  // .gitmodules: the libraries the build vendors as submodules
  Unknown,
};

std::string_view to_string(FileKind kind);
// Inverse of to_string; returns Unknown for names it does not know.
FileKind file_kind_from_string(std::string_view name);
// Classifies a repository-relative path by its name.
FileKind classify_path(std::string_view relative_path);
// Names that pickles often have but other formats share (.pkl, .pickle,
// .model: a SentencePiece model is no pickle). classify_path leaves them
// Unknown; discovery reads them as checkpoints whose kind is guessed.
bool has_checkpoint_candidate_name(std::string_view relative_path);

// Python sources and notebooks: the files whose imports and calls run.
bool is_python_code(FileKind kind);
// C/C++ and CUDA sources (not Metal): what the C++ front end and its passes read.
bool is_cxx_code(FileKind kind);
// C/C++, CUDA and Metal sources: the files the C++ front end's plugin (Clang)
// reads, and those Clang may include.
bool is_native_source(FileKind kind);

// One file, loaded. `path` is relative to the scan root and uses '/'.
struct SourceFile {
  std::string path;
  std::string absolute_path;
  FileKind kind = FileKind::Unknown;
  std::string text;
  // The kind was guessed, from the file's first bytes or a name that other
  // formats share, not known from its name: a front end that finds the file
  // is not of that kind says so (mode "skipped", no facts, a note), and the
  // scan then lists it as it would have without the guess.
  bool kind_guessed = false;
};

// Maps byte offsets to 1-based lines and back, built once per file.
class LineIndex {
public:
  explicit LineIndex(std::string_view text);
  // 1-based line containing `offset`.
  std::uint32_t line_of(std::size_t offset) const;
  // The text of a 1-based line without its line terminator.
  std::string_view line_text(std::uint32_t line) const;
  std::uint32_t line_count() const { return static_cast<std::uint32_t>(starts_.size()); }
  std::size_t line_start(std::uint32_t line) const { return starts_.at(line - 1); }

private:
  std::string_view text_;
  std::vector<std::size_t> starts_;
};

} // namespace mpsaudit
