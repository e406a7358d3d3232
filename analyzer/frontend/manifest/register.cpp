#include "frontend/manifest/manifest_frontend.h"

namespace mpsaudit {

void register_manifest_frontends(ExtractorTable &table) {
  table.add(FileKind::Requirements, extract_requirements);
  const auto by_text = [](FileFacts (*extract)(std::string_view, const std::string &)) {
    return
        [extract](const SourceFile &file, const ExtractOptions &) { return extract(file.text, file.path); };
  };
  table.add(FileKind::Pyproject, by_text(extract_pyproject));
  table.add(FileKind::SetupCfg, by_text(extract_setup_cfg));
  table.add(FileKind::SetupPy, by_text(extract_setup_py));
  table.add(FileKind::CondaEnv, by_text(extract_conda_env));
  table.add(FileKind::Cmake, by_text(extract_cmake));
  table.add(FileKind::Dockerfile, by_text(extract_dockerfile));
  table.add(FileKind::Shell, by_text(extract_shell));
  table.add(FileKind::GitModules, by_text(extract_gitmodules));
}

} // namespace mpsaudit
