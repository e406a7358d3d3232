// mpsaudit: can this PyTorch repository run on an Apple-Silicon Mac (MPS)?
#include <exception>
#include <iostream>

#include "cli/cli.h"
#include "core/text.h"

int main(int argc, char **argv) {
  mpsaudit::cli::Invocation invocation;
  invocation.executable = argc > 0 ? argv[0] : "mpsaudit";
  for (int i = 1; i < argc; ++i)
    invocation.arguments.emplace_back(argv[i]);
  // Caught so that the stack unwinds and every scope's clean-up runs (the
  // probe's temporary directory) even when something fails unexpectedly.
  try {
    return mpsaudit::cli::run(invocation);
  } catch (const std::exception &error) {
    std::cerr << "mpsaudit: internal error: " << mpsaudit::terminal_safe(error.what()) << "\n";
    return mpsaudit::cli::kScanErrors;
  }
}
