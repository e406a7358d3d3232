#include "core/source.h"

#include <algorithm>
#include <array>
#include <utility>

#include "core/text.h"

namespace mpsaudit {
namespace {

constexpr std::array<std::pair<FileKind, std::string_view>, 18> kKindNames{{
    {FileKind::Python, "python"},
    {FileKind::Notebook, "notebook"},
    {FileKind::Cxx, "cxx"},
    {FileKind::Cuda, "cuda"},
    {FileKind::Metal, "metal"},
    {FileKind::Cmake, "cmake"},
    {FileKind::Requirements, "requirements"},
    {FileKind::Pyproject, "pyproject"},
    {FileKind::SetupPy, "setup-py"},
    {FileKind::SetupCfg, "setup-cfg"},
    {FileKind::CondaEnv, "conda-env"},
    {FileKind::Dockerfile, "dockerfile"},
    {FileKind::Shell, "shell"},
    {FileKind::Prose, "prose"},
    {FileKind::Checkpoint, "checkpoint"},
    {FileKind::ModelConfig, "model-config"},
    {FileKind::GitModules, "gitmodules"},
    {FileKind::Unknown, "unknown"},
}};

} // namespace

std::string_view to_string(FileKind kind) {
  for (const auto &[k, name] : kKindNames)
    if (k == kind)
      return name;
  return "unknown";
}

FileKind file_kind_from_string(std::string_view name) {
  for (const auto &[k, n] : kKindNames)
    if (n == name)
      return k;
  return FileKind::Unknown;
}

bool is_python_code(FileKind kind) {
  return kind == FileKind::Python || kind == FileKind::Notebook;
}

bool is_cxx_code(FileKind kind) {
  return kind == FileKind::Cxx || kind == FileKind::Cuda;
}

bool is_native_source(FileKind kind) {
  return kind == FileKind::Cxx || kind == FileKind::Cuda || kind == FileKind::Metal;
}

FileKind classify_path(std::string_view relative_path) {
  const auto slash = relative_path.rfind('/');
  const std::string_view directory =
      slash == std::string_view::npos ? std::string_view{} : relative_path.substr(0, slash);
  const std::string name =
      to_lower(slash == std::string_view::npos ? relative_path : relative_path.substr(slash + 1));
  const std::string dir = to_lower(directory);

  if (name == "setup.py")
    return FileKind::SetupPy;
  if (name == "setup.cfg")
    return FileKind::SetupCfg;
  if (name == ".gitmodules")
    return FileKind::GitModules;
  if (name == "pyproject.toml")
    return FileKind::Pyproject;
  if (name == "cmakelists.txt" || ends_with(name, ".cmake"))
    return FileKind::Cmake;
  if (name == "dockerfile" || starts_with(name, "dockerfile.") || ends_with(name, ".dockerfile") ||
      name == "containerfile")
    return FileKind::Dockerfile;
  if (ends_with(name, ".py") || ends_with(name, ".pyi"))
    return FileKind::Python;
  if (ends_with(name, ".ipynb"))
    return FileKind::Notebook;
  if (ends_with(name, ".cu") || ends_with(name, ".cuh"))
    return FileKind::Cuda;
  for (std::string_view ext : {".cpp", ".cc", ".cxx", ".c++", ".h", ".hh", ".hpp", ".hxx", ".mm", ".c"})
    if (ends_with(name, ext))
      return FileKind::Cxx;
  if (ends_with(name, ".metal"))
    return FileKind::Metal;
  // requirements.txt, requirements-dev.txt, dev_requirements.txt,
  // requirements/base.txt, constraints.txt
  if ((name.find("requirements") != std::string::npos || starts_with(name, "constraints")) &&
      (ends_with(name, ".txt") || ends_with(name, ".in")))
    return FileKind::Requirements;
  if ((dir == "requirements" || ends_with(dir, "/requirements")) && ends_with(name, ".txt"))
    return FileKind::Requirements;
  if ((starts_with(name, "environment") || starts_with(name, "conda")) &&
      (ends_with(name, ".yml") || ends_with(name, ".yaml")))
    return FileKind::CondaEnv;
  if (ends_with(name, ".sh") || ends_with(name, ".bash") || ends_with(name, ".slurm") ||
      ends_with(name, ".sbatch") || name == "makefile" || ends_with(name, ".mk"))
    return FileKind::Shell;
  // .pth.tar: PyTorch's ImageNet example saves checkpoint.pth.tar and
  // model_best.pth.tar (a zip since torch 1.6, whatever the name says).
  for (std::string_view ext : {".pt", ".pth", ".ckpt", ".bin", ".safetensors", ".pth.tar"})
    if (ends_with(name, ext))
      return FileKind::Checkpoint;
  if (starts_with(name, "readme") || starts_with(name, "install") || ends_with(name, ".md") ||
      ends_with(name, ".mdx") || ends_with(name, ".rst"))
    return FileKind::Prose;
  if (ends_with(name, ".txt") && (dir == "docs" || starts_with(dir, "docs/")))
    return FileKind::Prose;
  // Model hyper-parameters (hidden_size, num_layers) for the memory-fit estimate.
  if (name == "config.json" || ends_with(name, "_config.json") || name == "hparams.json" ||
      ((ends_with(name, ".yaml") || ends_with(name, ".yml")) && !starts_with(dir, ".github")))
    return FileKind::ModelConfig;
  return FileKind::Unknown;
}

bool has_checkpoint_candidate_name(std::string_view relative_path) {
  const auto slash = relative_path.rfind('/');
  const std::string name =
      to_lower(slash == std::string_view::npos ? relative_path : relative_path.substr(slash + 1));
  return ends_with(name, ".pkl") || ends_with(name, ".pickle") || ends_with(name, ".model");
}

LineIndex::LineIndex(std::string_view text) : text_(text) {
  starts_.push_back(0);
  for (std::size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n' && i + 1 < text.size())
      starts_.push_back(i + 1);
}

std::uint32_t LineIndex::line_of(std::size_t offset) const {
  const auto it = std::upper_bound(starts_.begin(), starts_.end(), offset);
  return static_cast<std::uint32_t>(it - starts_.begin());
}

std::string_view LineIndex::line_text(std::uint32_t line) const {
  if (line == 0 || line > starts_.size())
    return {};
  const std::size_t begin = starts_[line - 1];
  std::size_t end = line < starts_.size() ? starts_[line] : text_.size();
  while (end > begin && (text_[end - 1] == '\n' || text_[end - 1] == '\r'))
    --end;
  return text_.substr(begin, end - begin);
}

} // namespace mpsaudit
