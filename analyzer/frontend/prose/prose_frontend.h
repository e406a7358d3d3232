// The prose front end: stated requirements in README, INSTALL and docs
// files (and notebook markdown cells), plus the registration of the
// checkpoint and model-config readers.
//
// A requirement is a `doc-requirement` fact. Its name is the requirement
// class; attribute `value` holds what is required and `sentence` the sentence
// that says it:
//   cuda-toolkit   "CUDA 11.8", "cudatoolkit>=11.3", "pytorch-cuda=12.1"  value "11.8"
//   nvidia-driver  "NVIDIA driver >= 525.60"                               value "525.60"
//   gpu-model      "requires an A100", "sm_80", "compute capability 7.0+"  value "A100"
//   vram           "at least 24 GB of GPU memory"                           value "24 GB"
//   cuda-index     "pip install ... --index-url .../whl/cu118"              value "cu118"
//   linux-only     "Linux only", "not supported on macOS"                   value "Linux only"
// Precision matters more than recall: a mention needs a requirement cue
// ("requires", "at least", "tested on", ">=") or a requirements/installation
// section, and changelog sections and lines are skipped.
#pragma once

#include <string>
#include <string_view>

#include "core/fact.h"
#include "frontend/frontend.h"

namespace mpsaudit {

// Facts of one prose text (Markdown, reStructuredText or plain text).
// Lines are 1-based and relative to `text`; the notebook front end calls
// this for markdown cells and maps lines into the notebook.
FileFacts extract_prose_text(std::string_view text, const std::string &path);

// Registers FileKind::Prose, FileKind::Checkpoint and FileKind::ModelConfig.
void register_prose_frontends(ExtractorTable &table);

} // namespace mpsaudit
