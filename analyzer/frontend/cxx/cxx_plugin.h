// The C++/CUDA front end links all of Clang and LLVM, whose loading alone
// costs about 25 ms and 60 MiB of resident memory at process start. A scan
// that meets no C, C++, CUDA or Metal file (a pre-commit run over a few
// Python files) should not pay that, so the Clang part is a plugin,
// libmpsaudit-cxx.so, that the analyzer loads with dlopen the first time it
// extracts such a file (cxx_lazy_frontend.cpp). This header is the contract
// between the two; both are built from the same tree.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/fact.h"
#include "frontend/frontend.h"

namespace mpsaudit {

// Bump when the meaning of the entry points changes; the sizes below catch
// a plugin built from another version of the fact model. The plugin links
// its own copy of core/, so the texts it interns live in its own pool: it is
// never unloaded, and InternedString compares texts when the pointers differ.
// 2: Guard::CpuFallback, device-dispatch; 3: interned texts; 4: parse bounds in ExtractOptions;
// 5: the parse worker program
inline constexpr std::uint32_t kCxxPluginAbi = 5;

struct CxxPluginApi {
  std::uint32_t abi = kCxxPluginAbi;
  std::size_t fact_size = sizeof(Fact);
  std::size_t file_facts_size = sizeof(FileFacts);
  std::size_t source_file_size = sizeof(SourceFile);
  std::size_t extract_options_size = sizeof(ExtractOptions);
  FileFacts (*extract_cxx)(const SourceFile &file, const ExtractOptions &options) = nullptr;
  FileFacts (*extract_metal)(const SourceFile &file, const ExtractOptions &options) = nullptr;
  // Ends the processes clang's parses run in, once the scan's C/C++/CUDA
  // files are read (a later parse starts another).
  void (*release)() = nullptr;
  // Parses from now on run in worker processes that exec `executable CAP`,
  // the parse worker (ast_scan.h); without it, in forks of this process.
  void (*use_worker_program)(const char *executable) = nullptr;

  // Whether a plugin's table was built from the same fact model as ours.
  bool compatible() const {
    const CxxPluginApi ours;
    return abi == ours.abi && fact_size == ours.fact_size && file_facts_size == ours.file_facts_size &&
           source_file_size == ours.source_file_size && extract_options_size == ours.extract_options_size &&
           extract_cxx && extract_metal && release && use_worker_program;
  }
};

// The plugin's file name, and the symbol it exports.
inline constexpr const char *kCxxPluginFileName = "libmpsaudit-cxx.so";
inline constexpr const char *kCxxPluginEntry = "mpsaudit_cxx_plugin_api";
// The parse worker (parse_worker_main.cpp), installed beside the plugin:
// `mpsaudit-parse-worker CAP`, its socket on kIsolatedWorkerSocket.
inline constexpr const char *kCxxParseWorkerFileName = "mpsaudit-parse-worker";

} // namespace mpsaudit

// The plugin's only exported function.
extern "C" const mpsaudit::CxxPluginApi *mpsaudit_cxx_plugin_api();
