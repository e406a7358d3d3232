// mpsaudit-parse-worker: the process clang's parses run in
// (core/isolated_worker.h). A scan starts one per thread that parses, as
// `mpsaudit-parse-worker CAP` with its socket on kIsolatedWorkerSocket, and
// it answers parse requests until the scan closes the socket. A program of
// its own, exec'd at once after the fork, because a bare fork of a scan
// with many threads may inherit a lock that another thread held.
#include <sys/stat.h>

#include <cstdint>
#include <cstdlib>
#include <iostream>

#include "core/isolated_worker.h"
#include "frontend/cxx/ast_scan.h"

int main(int argc, char **argv) {
  struct stat socket_status {};
  if (argc != 2 || ::fstat(mpsaudit::kIsolatedWorkerSocket, &socket_status) != 0 ||
      !S_ISSOCK(socket_status.st_mode)) {
    std::cerr << "mpsaudit-parse-worker: started by mpsaudit itself, with a socket on descriptor "
              << mpsaudit::kIsolatedWorkerSocket << "\n";
    return 2;
  }
  char *end = nullptr;
  const std::uint64_t cap = std::strtoull(argv[1], &end, 10);
  mpsaudit::cxx::serve_parse_worker(mpsaudit::kIsolatedWorkerSocket, *end == '\0' ? cap : 0);
}
