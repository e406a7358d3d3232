// mpsaudit: can this PyTorch repository run on an Apple-Silicon Mac (MPS)?
#include "cli/cli.h"

int main(int argc, char **argv) {
  mpsaudit::cli::Invocation invocation;
  invocation.executable = argc > 0 ? argv[0] : "mpsaudit";
  for (int i = 1; i < argc; ++i)
    invocation.arguments.emplace_back(argv[i]);
  return mpsaudit::cli::run(invocation);
}
