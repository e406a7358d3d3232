// The cpu-dispatched-op-calls project pass: Python calls of the repository's
// compiled ops whose C++ entry sends every tensor that is not CUDA to CPU code.
//
// `torch.ops.boxes.nms_rotated(boxes, scores, t)` binds a C++ function that
// tests `boxes.is_cuda()` and otherwise runs the CPU implementation (a
// device-dispatch fact with cpu_fallback = true, MPS843). On a Mac the op
// exists, so nothing fails at import, but an MPS tensor reaches the CPU arm,
// whose kernels assert CPU tensors or read device memory as host memory. The
// fix is at the Python call: move the inputs to the CPU there and the result
// back. The pass links the call to the op registration by op name (and by
// namespace for torch.ops), the registration to its function, and the
// function to its dispatch; each call is reported once.
//
// Not reported: a call behind a CUDA check (it never runs on a Mac), a call
// without arguments or that already passes `.cpu()` tensors, a dispatch
// decided by #if alone (not MPS843), and an op name that some
// registration binds to a function without such a dispatch (the name alone
// cannot tell which one the call reaches).
#pragma once

#include <string_view>
#include <vector>

#include "core/fact_kinds.h"
#include "core/project_pass.h"

namespace mpsaudit {

// name: the call as written (torch.ops.ns.op, pkg._C.op); attributes
// function (the bound C++ function), dispatch_at ("csrc/op.h:22"), where it
// tests the device) and cpu_target (what the CPU arm runs).
inline constexpr std::string_view kCpuDispatchedOpCallFact = fact_kind::CpuDispatchedOpCall;

void find_cpu_dispatched_op_calls(std::vector<ProjectFile> &files);

// Compiled-op calls, op registrations and CPU-fallback dispatches, whole.
FactRetention op_call_retention(const Fact &fact);

} // namespace mpsaudit
