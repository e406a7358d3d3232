// A two-file project whose verdict is DUAL: a model the Mac can run, and a
// distributed training script that stays on Linux. Both move tensors with
// .cuda(), so the recommended path (the model) and the native port (both)
// differ in hours and in what `mpsaudit fix` can edit.
#pragma once

#include <string_view>

#include "../test_support.h"
#include "assess/decision.h"

namespace mpsaudit::testing {

// The decision's thresholds as a session makes them: the training-scale
// lists from the repository catalog's attributes (take_training_scale), so
// that the distributed script above is training at scale.
inline DecisionThresholds repository_thresholds() {
  DecisionThresholds thresholds;
  take_training_scale(repository_catalog(), thresholds);
  return thresholds;
}

inline constexpr std::string_view kDualModelCode =
    "import torch.nn as nn\nimport torch\n\nclass Net(nn.Module):\n"
    "    def forward(self, x):\n        return x.cuda()\n";
inline constexpr std::string_view kDualTrainScript =
    "import torch\nimport torch.distributed as dist\nfrom torch.utils.data import "
    "DataLoader\n\ndef main(model, data):\n    dist.init_process_group('nccl')\n"
    "    opt = torch.optim.AdamW(model.parameters())\n    for x in DataLoader(data):\n"
    "        model(x.cuda()).sum().backward()\n        opt.step()\n"
    "\nif __name__ == \"__main__\":\n    main(None, None)\n";

} // namespace mpsaudit::testing
