// Before any test: this binary's clang parses run in the parse worker
// program, exec'd after the fork, as a scan's do (frontend/cxx/ast_scan.h).
// "the extractor can run on many threads at once" parses on four threads;
// a bare fork while another thread held GCC 12's AddressSanitizer allocator
// lock left the child waiting for that lock for ever, and the test, which
// sets no parse deadline, with it (CI, 2026-12-07; docs/robustness.md).
#include "frontend/cxx/ast_scan.h"

namespace {

const bool kParsesInWorkerProgram = [] {
  mpsaudit::cxx::use_parse_worker_program(MPSAUDIT_PARSE_WORKER);
  return true;
}();

} // namespace
