// libmpsaudit-cxx.so: the Clang part of the C++/CUDA front end behind the
// entry point the analyzer looks up after dlopen (cxx_plugin.h).
#include "frontend/cxx/cxx_plugin.h"

#include "frontend/cxx/ast_scan.h"
#include "frontend/cxx/cxx_frontend.h"

namespace {

mpsaudit::FileFacts extract_cxx_auto(const mpsaudit::SourceFile &file,
                                     const mpsaudit::ExtractOptions &options) {
  return mpsaudit::extract_cxx_file(file, options, mpsaudit::CxxParseMode::Auto);
}

void use_worker_program(const char *executable) {
  mpsaudit::cxx::use_parse_worker_program(executable);
}

} // namespace

extern "C" __attribute__((visibility("default"))) const mpsaudit::CxxPluginApi *mpsaudit_cxx_plugin_api() {
  static const mpsaudit::CxxPluginApi api = [] {
    mpsaudit::CxxPluginApi table;
    table.extract_cxx = &extract_cxx_auto;
    table.extract_metal = &mpsaudit::extract_metal_file;
    table.release = &mpsaudit::cxx::stop_parse_workers;
    table.use_worker_program = &use_worker_program;
    return table;
  }();
  return &api;
}
