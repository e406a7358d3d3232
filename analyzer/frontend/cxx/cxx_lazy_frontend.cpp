// Registers the C, C++, CUDA and Metal extractors without loading Clang: the
// first file of those kinds loads libmpsaudit-cxx.so (cxx_plugin.h). Where
// it is looked for, first match wins:
//   $MPSAUDIT_CXX_PLUGIN                      an explicit path (tests, packagers)
//   <binary's directory>/libmpsaudit-cxx.so   the build tree
//   <binary's directory>/../<libdir>/mpsaudit/libmpsaudit-cxx.so   an install
//   the build tree this analyzer was built in (unit-test binaries)
// A plugin that cannot be loaded, or comes from another build, leaves every
// such file skipped with an error diagnostic that says why; the rest of the
// scan goes on. Once the scan has read its last C/C++/CUDA file, the worker
// processes clang's parses ran in are ended (ast_scan.h) and the pages of
// Clang's code that the plugin brought in are unmapped
// (core/library_pages.h).
#include <dlfcn.h>
#ifdef __APPLE__
#include <mach-o/dyld.h>
#endif

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "core/library_pages.h"
#include "frontend/cxx/cxx_frontend.h"
#include "frontend/cxx/cxx_plugin.h"

namespace mpsaudit {
namespace {

namespace fs = std::filesystem;

struct LoadedPlugin {
  const CxxPluginApi *api = nullptr;
  std::string problem; // why api is null
  LibraryPages pages;  // the read-only pages of the plugin and the libraries it loaded
};

// This executable's real path (symbolic links resolved, as Homebrew links
// bin/mpsaudit into its Cellar), or empty.
fs::path executable_path() {
  std::error_code error;
#ifdef __APPLE__
  std::uint32_t size = 0;
  _NSGetExecutablePath(nullptr, &size);
  std::string buffer(size, '\0');
  if (_NSGetExecutablePath(buffer.data(), &size) != 0)
    return {};
  const fs::path self = fs::canonical(buffer.c_str(), error);
#else
  const fs::path self = fs::read_symlink("/proc/self/exe", error);
#endif
  return error ? fs::path() : self;
}

std::vector<std::string> plugin_candidates() {
  if (const char *explicit_path = std::getenv("MPSAUDIT_CXX_PLUGIN"); explicit_path && *explicit_path)
    return {explicit_path};
  std::vector<std::string> candidates;
  const fs::path self = executable_path();
  if (!self.empty()) {
    candidates.push_back((self.parent_path() / kCxxPluginFileName).string());
    candidates.push_back(
        (self.parent_path().parent_path() / MPSAUDIT_CXX_PLUGIN_LIBDIR / "mpsaudit" / kCxxPluginFileName)
            .string());
  }
  candidates.push_back(MPSAUDIT_CXX_PLUGIN_BUILD_PATH);
  return candidates;
}

LoadedPlugin load_plugin() {
  LoadedPlugin loaded;
  std::string tried;
  for (const std::string &path : plugin_candidates()) {
    std::error_code error;
    if (!fs::exists(path, error)) {
      tried += (tried.empty() ? "" : ", ") + path;
      continue;
    }
    // RTLD_LOCAL: Clang's and the plugin's symbols stay out of our namespace.
    const LibraryPages before = LibraryPages::loaded();
    void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char *reason = dlerror();
      loaded.problem = "cannot load " + path + ": " + (reason ? reason : "unknown error");
      return loaded;
    }
    using Entry = const CxxPluginApi *(*)();
    const auto entry = reinterpret_cast<Entry>(dlsym(handle, kCxxPluginEntry));
    const CxxPluginApi *api = entry ? entry() : nullptr;
    if (!api || !api->compatible()) {
      loaded.problem = path + " is not a C++/CUDA front end of this mpsaudit build";
      return loaded;
    }
    // Beside the plugin, the program its parses run in (kCxxParseWorkerFileName).
    const fs::path worker = fs::path(path).parent_path() / kCxxParseWorkerFileName;
    if (fs::exists(worker, error))
      api->use_worker_program(worker.c_str());
    loaded.api = api; // the handle stays open for the life of the process
    loaded.pages = LibraryPages::added(before, LibraryPages::loaded());
    return loaded;
  }
  loaded.problem = std::string(kCxxPluginFileName) + " not found (looked in " + tried +
                   "); this build of mpsaudit reads C++/CUDA files only with it";
  return loaded;
}

// Set once plugin() has looked for the plugin: releasing its pages must not load it.
std::atomic<const LoadedPlugin *> loaded_plugin{nullptr};

const LoadedPlugin &plugin() {
  static const LoadedPlugin loaded = load_plugin(); // once, thread-safe
  static const bool published = (loaded_plugin.store(&loaded, std::memory_order_release), true);
  static_cast<void>(published);
  return loaded;
}

FileFacts unavailable(const SourceFile &file) {
  FileFacts facts;
  facts.mode = "skipped";
  facts.diagnostics.push_back({DiagnosticLevel::Error, file.path, 0, "cxx-frontend-unavailable",
                               "C++/CUDA front end unavailable: " + plugin().problem});
  return facts;
}

} // namespace

void register_cxx_frontends(ExtractorTable &table) {
  auto extract_cxx = [](const SourceFile &file, const ExtractOptions &options) {
    const CxxPluginApi *api = plugin().api;
    return api ? api->extract_cxx(file, options) : unavailable(file);
  };
  table.add(FileKind::Cxx, extract_cxx);
  table.add(FileKind::Cuda, extract_cxx);
  table.add(FileKind::Metal, [](const SourceFile &file, const ExtractOptions &options) {
    const CxxPluginApi *api = plugin().api;
    return api ? api->extract_metal(file, options) : unavailable(file);
  });
  // Never loads the plugin: a scan without C++/CUDA files has nothing to give back.
  table.add_release([] {
    if (const LoadedPlugin *loaded = loaded_plugin.load(std::memory_order_acquire)) {
      if (loaded->api)
        loaded->api->release();
      loaded->pages.release();
    }
  });
  table.add_loaded_check([] { return loaded_plugin.load(std::memory_order_acquire) != nullptr; });
}

} // namespace mpsaudit
